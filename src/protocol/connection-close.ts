/**
 * The connection's one close: the first cause wins (the agent exited, its stdout ended or
 * failed, the SDK gave up, or the client closed), becomes the typed ConnectionClosedError every
 * pending request is rejected with, and aborts the connection's signal.
 */
import { background } from '../os/background.js';
import { ConnectionClosedError, type CloseCause } from './errors.js';
import type { AgentProcess } from './spawn.js';
import type { Transport, TransportCloseInfo } from './transport-types.js';
import type { Logger } from './types.js';

export interface CloseInfo {
  cause: CloseCause;
  /** The typed error every pending request was rejected with. */
  error: ConnectionClosedError;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
  /** The underlying stream failure, for 'stream_error'. */
  streamError?: Error;
}

export type CloseFacts = Omit<CloseInfo, 'error'>;

export class CloseLatch {
  readonly closed: Promise<CloseInfo>;
  private readonly abort = new AbortController();
  private facts: CloseFacts | undefined;
  private closedError: ConnectionClosedError | undefined;
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(
    /** Runs once, before `closed` resolves: reject what waits, release what is held. */
    private readonly teardown: (error: ConnectionClosedError, facts: CloseFacts) => void,
  ) {
    this.closed = new Promise<CloseInfo>((r) => (this.resolveClosed = r));
  }

  /** Aborts (reason: the ConnectionClosedError) when the connection closes. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get error(): ConnectionClosedError | undefined {
    return this.closedError;
  }

  get isClosed(): boolean {
    return this.facts !== undefined;
  }

  /** Closes with these facts unless already closed. */
  close(facts: CloseFacts): void {
    if (this.facts) return;
    this.facts = facts;
    const error = toClosedError(facts);
    this.closedError = error;
    this.abort.abort(error);
    this.teardown(error, facts);
    this.resolveClosed({ ...facts, error });
  }
}

/**
 * Closes `latch` when the transport ends or the process exits. stdout usually ends because the
 * child died: the exit, with its code and stderr, wins if it comes within `exitGraceMs`.
 */
export function closeOnTransportOrExit(
  latch: CloseLatch,
  transport: Transport,
  proc: AgentProcess | undefined,
  exitGraceMs: number,
  logger: Logger,
): void {
  const exitInfo = (ex: { code: number | null; signal: string | null }): CloseFacts => ({
    cause: 'exit',
    exitCode: ex.code,
    signal: ex.signal,
    stderrTail: proc?.stderrTail(2000) ?? '',
  });
  const onTransportClosed = async (t: TransportCloseInfo): Promise<void> => {
    if (latch.isClosed) return; // we closed it
    if (proc) {
      if (!proc.hasExited) await Promise.race([proc.exited, delay(exitGraceMs)]);
      if (proc.hasExited) return latch.close(exitInfo(await proc.exited));
    }
    latch.close(t.error ? { cause: t.cause, streamError: t.error } : { cause: t.cause });
  };
  background(transport.closed.then(onTransportClosed), logger, 'closing the connection after its transport');
  if (proc)
    background(
      proc.exited.then((ex) => latch.close(exitInfo(ex))),
      logger,
      'closing the connection after the agent exited',
    );
}

export function toClosedError(info: CloseFacts): ConnectionClosedError {
  switch (info.cause) {
    case 'exit': {
      const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.exitCode}`;
      const tail = (info.stderrTail ?? '').trim();
      const shown = tail.length > 800 ? '…' + tail.slice(-800) : tail;
      return new ConnectionClosedError('exit', `agent ${how}${shown ? `; stderr: ${shown}` : ''}`, {
        exitCode: info.exitCode ?? null,
        signal: info.signal ?? null,
        stderrTail: info.stderrTail ?? '',
      });
    }
    case 'eof':
      return new ConnectionClosedError('eof', 'agent closed its stdout');
    case 'stream_error': {
      const msg = info.streamError?.message ?? 'unknown error';
      return new ConnectionClosedError(
        'stream_error',
        `agent stream failed: ${msg}`,
        { error: msg },
        info.streamError ? { cause: info.streamError } : undefined,
      );
    }
    case 'closed':
      return new ConnectionClosedError('closed', 'connection closed by the client');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
