/**
 * NDJSON JSON-RPC transport over a Node Readable/Writable pair (an agent's stdout/stdin).
 *
 * The parts, each with one job: FrameReader (bytes → checked frames, protocol errors, flood
 * detection), InboundQueue (divert, then the SDK's stream with backpressure), InputValve (when
 * the input is read), FrameWriter (frames → lines, drain). This file wires them to the streams
 * and owns the close: the first of EOF, a stream error, a flood or close() wins.
 */
import type { Readable, Writable } from 'node:stream';
import { ConnectionClosedError } from './errors.js';
import { FrameReader } from './frame-reader.js';
import { FrameWriter } from './frame-writer.js';
import { InboundQueue } from './inbound-queue.js';
import { InputValve } from './input-valve.js';
import type {
  Transport,
  TransportCloseInfo,
  TransportHooks,
  TransportOptions,
  TransportStats,
} from './transport-types.js';
import { silentLogger, type RawMessage } from './types.js';

export { checkMessage } from './jsonrpc-shape.js';
export type {
  Transport,
  TransportCloseInfo,
  TransportHooks,
  TransportOptions,
  TransportStats,
} from './transport-types.js';

const noop = (): void => {};

export function createTransport(options: TransportOptions): Transport {
  return new StreamTransport(options);
}

class StreamTransport implements Transport {
  readonly stream: { readable: ReadableStream<RawMessage>; writable: WritableStream<RawMessage> };
  readonly closed: Promise<TransportCloseInfo>;
  readonly stats: TransportStats = {
    bytesIn: 0,
    bytesOut: 0,
    framesIn: 0,
    framesOut: 0,
    diverted: 0,
    protocolErrors: 0,
  };
  private readonly input: Readable;
  private readonly output: Writable;
  // Read by the parts at each use, so setHooks takes effect at once.
  private readonly hooks: TransportHooks;
  private readonly valve: InputValve;
  private readonly inbox: InboundQueue;
  private readonly reader: FrameReader;
  private readonly writer: FrameWriter;
  private done = false;
  private resolveClosed!: (info: TransportCloseInfo) => void;

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.done) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.reader.read(buf);
    if (!this.done) this.valve.afterRead(buf.length);
  };
  private readonly onEnd = (): void => {
    if (this.done) return;
    this.reader.end();
    this.finish('eof');
  };
  private readonly onStreamError = (err: Error): void => this.finish('stream_error', err);

  constructor(options: TransportOptions) {
    const { input, output } = options;
    this.input = input;
    this.output = output;
    const now = options.now ?? (() => performance.now());
    const t0 = now();
    const clock = (): number => Math.round(now() - t0);
    const logger = options.logger ?? silentLogger;
    this.hooks = {
      onFrame: options.onFrame,
      onProtocolError: options.onProtocolError,
      divert: options.divert,
      onReadEnd: options.onReadEnd,
    };
    this.closed = new Promise<TransportCloseInfo>((r) => (this.resolveClosed = r));
    this.valve = new InputValve(input, options.gate);
    this.inbox = new InboundQueue(this.hooks, this.stats, this.valve, options.highWaterMark ?? 1024);
    this.reader = new FrameReader({
      hooks: this.hooks,
      stats: this.stats,
      inbox: this.inbox,
      logger,
      clock,
      now,
      maxLineBytes: options.maxLineBytes,
      garbage: options.garbage,
      onFlood: (why) => this.flooded(why),
    });
    this.writer = new FrameWriter(output, this.hooks, this.stats, logger, clock);
    this.stream = {
      readable: this.inbox.readable,
      writable: new WritableStream<RawMessage>({ write: (msg) => this.writer.send(msg) }),
    };

    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('close', this.onEnd); // destroyed without 'end' (e.g. a killed pipe)
    input.on('error', this.onStreamError);
    output.on('error', this.onStreamError);
  }

  get isClosed(): boolean {
    return this.done;
  }

  send(msg: RawMessage): Promise<void> {
    return this.writer.send(msg);
  }

  close(): void {
    if (this.done) return;
    this.finish('closed');
    this.input.resume();
    try {
      this.output.end();
    } catch {
      /* output already gone */
    }
  }

  setHooks(hooks: TransportHooks): void {
    if ('onFrame' in hooks) this.hooks.onFrame = hooks.onFrame;
    if ('onProtocolError' in hooks) this.hooks.onProtocolError = hooks.onProtocolError;
    if ('divert' in hooks) this.hooks.divert = hooks.divert;
    if ('onReadEnd' in hooks) this.hooks.onReadEnd = hooks.onReadEnd;
  }

  /** Close once the agent's stdout is a flood of non-frames: it is not speaking ACP. */
  private flooded(why: string): void {
    if (this.done) return;
    this.valve.abandon();
    this.finish('stream_error', new Error(`agent stdout is not ACP: ${why}`));
    // Stop reading for good (finish() would keep draining): a flooding writer blocks until it
    // is terminated, instead of being read at full speed or dying of EPIPE first (its exit
    // would then read as the reason).
    this.input.pause();
  }

  private finish(cause: TransportCloseInfo['cause'], error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.reader.stop();
    const closeError = error
      ? new ConnectionClosedError(
          cause,
          `transport closed (${cause}): ${error.message}`,
          { error: error.message },
          { cause: error },
        )
      : new ConnectionClosedError(cause, `transport closed (${cause})`);
    const { input, output } = this;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('close', this.onEnd);
    input.off('error', this.onStreamError);
    output.off('error', this.onStreamError);
    // Late errors (EPIPE after the child died) must not become uncaught exceptions.
    input.on('error', noop);
    output.on('error', noop);
    this.valve.finish();
    this.writer.close(closeError);
    this.inbox.close();
    this.resolveClosed(error ? { cause, error } : { cause });
  }
}
