/**
 * NDJSON JSON-RPC transport over a Node Readable/Writable pair (an agent's stdout/stdin).
 *
 * One JSON.parse per line, a cheap shape check, then: raw tap (`onFrame`), `divert` (the
 * session router takes `session/update` here, synchronously, in arrival order), and only what
 * is left goes to a Web ReadableStream for the SDK. Because the SDK reads that stream
 * asynchronously, everything diverted before a response has been handled before the SDK can
 * resolve the request. Bad lines are reported and skipped; only a flood of them (no valid frame
 * for `garbage.maxLines` lines or `garbage.maxBytes` bytes, see GarbageMeter) closes the
 * connection, as 'stream_error' with a message that says so. Input is paused for a turn of the
 * event loop after every YIELD_BYTES, so timers (setup timeouts) fire on time however fast the
 * agent writes.
 */
import type { Readable, Writable } from 'node:stream';
import { ConnectionClosedError, type CloseCause } from './errors.js';
import {
  GarbageMeter,
  LineDecoder,
  mayBeJson,
  DEFAULT_MAX_GARBAGE_BYTES,
  type GarbageLimits,
  type OversizeLine,
} from './ndjson.js';
import type { FlowGate } from './flow-gate.js';
import { silentLogger, type Frame, type Logger, type ProtocolErrorEvent, type RawMessage } from './types.js';

export interface TransportHooks {
  /** Raw tap: every valid inbound and outbound frame, in wire order. */
  onFrame?: (frame: Frame) => void;
  onProtocolError?: (event: ProtocolErrorEvent) => void;
  /** Return true to consume an inbound message (it then never reaches the SDK). */
  divert?: (msg: RawMessage) => boolean;
  /** After the lines of one read were handled (consumers that batch per read flush here). */
  onReadEnd?: () => void;
}

export interface TransportOptions extends TransportHooks {
  input: Readable;
  output: Writable;
  maxLineBytes?: number;
  /** Clock in ms (default performance.now). */
  now?: () => number;
  /** Messages queued for the SDK before input is paused (backpressure). Default 1024. */
  highWaterMark?: number;
  /** Where exceptions thrown by hooks go (they never reach the stream). */
  logger?: Logger;
  /** When a run of bad lines counts as a flood that closes the connection (see GarbageMeter). */
  garbage?: GarbageLimits;
  /** While held, input stops at the next chunk (the consumer downstream is full). */
  gate?: FlowGate;
}

export interface TransportCloseInfo {
  cause: Exclude<CloseCause, 'exit'>;
  error?: Error;
}

export interface TransportStats {
  bytesIn: number;
  bytesOut: number;
  framesIn: number;
  framesOut: number;
  diverted: number;
  protocolErrors: number;
}

export interface Transport {
  /** For the SDK's `connect()`: message objects, not bytes. */
  readonly stream: { readable: ReadableStream<RawMessage>; writable: WritableStream<RawMessage> };
  /** Write one message as one line; resolves once the output accepted it (drain respected). */
  send(msg: RawMessage): Promise<void>;
  readonly closed: Promise<TransportCloseInfo>;
  readonly isClosed: boolean;
  /** Stop reading, end the output. Idempotent. */
  close(): void;
  /** Install or replace hooks after creation (connectAgent installs its divert this way). */
  setHooks(hooks: TransportHooks): void;
  readonly stats: TransportStats;
}

const PREVIEW_CHARS = 200;
const RESOLVED = Promise.resolve();
/** Input processed between two turns of the event loop (pause, setImmediate, resume). */
const YIELD_BYTES = 1024 * 1024;

export function createTransport(options: TransportOptions): Transport {
  const { input, output } = options;
  const now = options.now ?? (() => performance.now());
  const t0 = now();
  let onFrame = options.onFrame;
  let onProtocolError = options.onProtocolError;
  let divert = options.divert;
  let onReadEnd = options.onReadEnd;
  const logger = options.logger ?? silentLogger;
  const stats: TransportStats = { bytesIn: 0, bytesOut: 0, framesIn: 0, framesOut: 0, diverted: 0, protocolErrors: 0 };

  let done = false;
  let resolveClosed!: (info: TransportCloseInfo) => void;
  const closed = new Promise<TransportCloseInfo>((r) => (resolveClosed = r));
  let closeError: ConnectionClosedError | undefined;

  let controller!: ReadableStreamDefaultController<RawMessage>;
  let paused = false; // the SDK side is full (backpressure)
  let yielding = false; // paused for one turn of the event loop
  let abandoned = false; // closed for flooding: never read again
  let gated: (() => void) | undefined; // stopped by options.gate; forgets the gate's wake-up
  let sinceYield = 0;
  // t_ms of the frames of the current read: every line of one chunk arrived at the same moment,
  // so the clock is read once per chunk rather than once per frame.
  let readMs = 0;
  let cancelled = false; // the SDK stopped reading (it closed itself)
  const readable = new ReadableStream<RawMessage>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (paused && !done) {
          paused = false;
          resumeIfFree();
        }
      },
      cancel() {
        cancelled = true;
        if (paused) {
          paused = false;
          resumeIfFree();
        }
      },
    },
    { highWaterMark: options.highWaterMark ?? 1024 },
  );

  /** Reads again unless something else still holds input (the SDK side full, a yield, the gate). */
  function resumeIfFree(): void {
    if (abandoned || yielding || gated !== undefined) return;
    if (done || !paused) input.resume();
  }

  function report(kind: ProtocolErrorEvent['kind'], line: string, bytes: number, detail?: string): void {
    stats.protocolErrors++;
    garbage.badLine();
    if (!onProtocolError) return;
    const event: ProtocolErrorEvent = {
      kind,
      preview: line.length > PREVIEW_CHARS ? line.slice(0, PREVIEW_CHARS) : line,
      bytes,
    };
    if (detail !== undefined) event.detail = detail;
    try {
      onProtocolError(event);
    } catch (e) {
      logger.error('onProtocolError threw', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  function deliver(msg: RawMessage): void {
    if (divert !== undefined && divert(msg)) {
      stats.diverted++;
      return;
    }
    if (cancelled) return;
    controller.enqueue(msg);
    if (!paused && (controller.desiredSize ?? 1) <= 0) {
      paused = true;
      input.pause();
    }
  }

  function onLine(line: string): void {
    if (done) return;
    let msg: unknown;
    if (!mayBeJson(line)) {
      // Certainly not JSON: no JSON.parse (its exception is what made a flood slow).
      if (line.trim() !== '') report('non_json', line, Buffer.byteLength(line));
      else garbage.badLine();
      checkGarbage();
      return;
    }
    try {
      msg = JSON.parse(line);
    } catch {
      report('non_json', line, Buffer.byteLength(line));
      checkGarbage();
      return;
    }
    const problem = checkMessage(msg);
    if (problem !== undefined) {
      report('invalid_jsonrpc', line, Buffer.byteLength(line), problem);
      // A malformed response still names a request we wait on: let the SDK fail it (-32600)
      // rather than leave it hanging.
      if (problem === MALFORMED_RESPONSE) {
        try {
          deliver(msg as RawMessage);
        } catch (e) {
          logger.error('transport hook threw', { error: e instanceof Error ? e.message : String(e) });
        }
      }
      checkGarbage();
      return;
    }
    stats.framesIn++;
    garbage.frame();
    // A throwing tap must not cost the session its frame (an initialize answer would hang).
    if (onFrame !== undefined) {
      try {
        onFrame({ dir: 'agent->client', t_ms: readMs, msg: msg as RawMessage, raw: line });
      } catch (e) {
        logger.error('onFrame threw', { error: e instanceof Error ? e.message : String(e) });
      }
    }
    try {
      deliver(msg as RawMessage);
    } catch (e) {
      logger.error('transport hook threw', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  const decoder = new LineDecoder({
    maxLineBytes: options.maxLineBytes,
    onLine,
    onOversize: (info: OversizeLine) => {
      report(
        'too_large',
        info.preview,
        info.bytes,
        `line of ${info.bytes} bytes exceeds the ${decoder.maxLineBytes}-byte limit`,
      );
      checkGarbage();
    },
  });
  // One legitimate frame near the line limit must never look like a flood.
  const garbage = new GarbageMeter(
    {
      ...options.garbage,
      maxBytes: Math.max(options.garbage?.maxBytes ?? DEFAULT_MAX_GARBAGE_BYTES, 2 * decoder.maxLineBytes),
    },
    now,
  );

  /** Close once the agent's stdout is a flood of non-frames: it is not speaking ACP. */
  function checkGarbage(): void {
    if (done) return;
    const why = garbage.exceeded();
    if (why === undefined) return;
    decoder.stop();
    abandoned = true;
    finish('stream_error', new Error(`agent stdout is not ACP: ${why}`));
    // Stop reading for good (finish() would keep draining): a flooding writer blocks until it
    // is terminated, instead of being read at full speed or dying of EPIPE first (its exit
    // would then read as the reason).
    input.pause();
  }

  function yieldInput(): void {
    yielding = true;
    input.pause();
    setImmediate(() => {
      yielding = false;
      resumeIfFree();
    });
  }

  function stopAtGate(gate: FlowGate): void {
    input.pause();
    gated = gate.whenOpen(() => {
      gated = undefined;
      resumeIfFree();
    });
  }

  function readEnded(): void {
    if (onReadEnd === undefined) return;
    try {
      onReadEnd();
    } catch (e) {
      logger.error('onReadEnd threw', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  const onData = (chunk: Buffer | string): void => {
    if (done) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    readMs = Math.round(now() - t0);
    stats.bytesIn += buf.length;
    garbage.read(buf.length);
    decoder.push(buf);
    readEnded();
    checkGarbage();
    sinceYield += buf.length;
    if (sinceYield >= YIELD_BYTES && !done && !yielding) {
      sinceYield = 0;
      yieldInput();
    }
    if (options.gate?.held === true && gated === undefined && !done) stopAtGate(options.gate);
  };
  const onEnd = (): void => {
    if (done) return;
    readMs = Math.round(now() - t0);
    decoder.end();
    readEnded();
    finish('eof');
  };
  const onInputError = (err: Error): void => finish('stream_error', err);
  const onOutputError = (err: Error): void => finish('stream_error', err);
  const noop = (): void => {};

  input.on('data', onData);
  input.on('end', onEnd);
  input.on('close', onEnd); // destroyed without 'end' (e.g. a killed pipe)
  input.on('error', onInputError);
  output.on('error', onOutputError);

  // Drain waiters share one promise per backpressure episode.
  let drain: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } | undefined;
  function waitDrain(): Promise<void> {
    if (drain) return drain.promise;
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(noop);
    drain = { promise, resolve, reject };
    output.once('drain', () => {
      const d = drain;
      drain = undefined;
      d?.resolve();
    });
    return promise;
  }

  function send(msg: RawMessage): Promise<void> {
    if (done) return Promise.reject(closeError);
    let raw: string;
    try {
      raw = JSON.stringify(msg);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const line = raw + '\n';
    stats.framesOut++;
    stats.bytesOut += Buffer.byteLength(line);
    if (onFrame !== undefined) {
      try {
        onFrame({ dir: 'client->agent', t_ms: Math.round(now() - t0), msg, raw });
      } catch (e) {
        logger.error('onFrame threw', { error: e instanceof Error ? e.message : String(e) });
      }
    }
    if (output.write(line)) return RESOLVED;
    return waitDrain();
  }

  const writable = new WritableStream<RawMessage>({ write: (msg) => send(msg) });

  function finish(cause: TransportCloseInfo['cause'], error?: Error): void {
    if (done) return;
    done = true;
    closeError = error
      ? new ConnectionClosedError(
          cause,
          `transport closed (${cause}): ${error.message}`,
          { error: error.message },
          { cause: error },
        )
      : new ConnectionClosedError(cause, `transport closed (${cause})`);
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
    input.off('error', onInputError);
    output.off('error', onOutputError);
    // Late errors (EPIPE after the child died) must not become uncaught exceptions.
    input.on('error', noop);
    output.on('error', noop);
    const wasGated = gated !== undefined;
    gated?.();
    gated = undefined;
    if (paused || wasGated) input.resume(); // keep draining so a live writer never blocks on us
    drain?.reject(closeError);
    drain = undefined;
    // close(), not error(): messages already queued (a final response) still reach the SDK.
    try {
      controller.close();
    } catch {
      /* already closed */
    }
    resolveClosed(error ? { cause, error } : { cause });
  }

  return {
    stream: { readable, writable },
    send,
    closed,
    get isClosed() {
      return done;
    },
    close() {
      if (done) return;
      finish('closed');
      input.resume();
      try {
        output.end();
      } catch {
        /* output already gone */
      }
    },
    setHooks(hooks: TransportHooks) {
      if ('onFrame' in hooks) onFrame = hooks.onFrame;
      if ('onProtocolError' in hooks) onProtocolError = hooks.onProtocolError;
      if ('divert' in hooks) divert = hooks.divert;
      if ('onReadEnd' in hooks) onReadEnd = hooks.onReadEnd;
    },
    stats,
  };
}

const MALFORMED_RESPONSE = 'malformed response (needs exactly one of result/error, error needs code and message)';

/** undefined when `m` is a valid JSON-RPC 2.0 request, notification or response; else why not. */
export function checkMessage(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null) return 'not an object';
  if (Array.isArray(m)) return 'batches (arrays) are not supported';
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  const method = o.method;
  if (method !== undefined) {
    if (typeof method !== 'string') return 'method must be a string';
    if (o.id !== undefined && !isId(o.id)) return 'invalid id';
    if (o.result !== undefined || o.error !== undefined) return 'a request cannot carry result/error';
    return undefined;
  }
  if (!isId(o.id)) return 'no method and no valid id';
  const hasResult = o.result !== undefined;
  const e = o.error;
  if (hasResult === (e !== undefined)) return MALFORMED_RESPONSE;
  if (e !== undefined) {
    if (typeof e !== 'object' || e === null) return MALFORMED_RESPONSE;
    const err = e as Record<string, unknown>;
    if (!Number.isInteger(err.code) || typeof err.message !== 'string') return MALFORMED_RESPONSE;
  }
  return undefined;
}

function isId(v: unknown): boolean {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}
