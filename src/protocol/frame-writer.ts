/**
 * The outbound side: one message → one NDJSON line on the output, through the raw tap. A full
 * output is respected: the write resolves on 'drain', and every writer waiting in one
 * backpressure episode shares one promise.
 */
import type { Writable } from 'node:stream';
import { errMessage } from './errors.js';
import type { TransportHooks, TransportStats } from './transport-types.js';
import type { Logger, RawMessage } from './types.js';

const RESOLVED = Promise.resolve();
const noop = (): void => {};

interface Drain {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class FrameWriter {
  private drain: Drain | undefined;
  private closedWith: Error | undefined;
  private readonly drained = (): void => {
    const d = this.drain;
    this.drain = undefined;
    d?.resolve();
  };

  constructor(
    private readonly output: Writable,
    private readonly hooks: TransportHooks,
    private readonly stats: TransportStats,
    private readonly logger: Logger,
    /** Milliseconds since the transport started (a frame's t_ms). */
    private readonly clock: () => number,
  ) {}

  send(msg: RawMessage): Promise<void> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    let raw: string;
    try {
      raw = JSON.stringify(msg);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const line = raw + '\n';
    this.stats.framesOut++;
    this.stats.bytesOut += Buffer.byteLength(line);
    const onFrame = this.hooks.onFrame;
    if (onFrame !== undefined) {
      try {
        onFrame({ dir: 'client->agent', t_ms: this.clock(), msg, raw });
      } catch (e) {
        this.logger.error('onFrame threw', { error: errMessage(e) });
      }
    }
    if (this.output.write(line)) return RESOLVED;
    return this.waitDrain();
  }

  /** Every later send, and every writer waiting for a drain, fails with `error`. */
  close(error: Error): void {
    this.closedWith = error;
    this.drain?.reject(error);
    this.drain = undefined;
  }

  private waitDrain(): Promise<void> {
    if (this.drain) return this.drain.promise;
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(noop);
    this.drain = { promise, resolve, reject };
    this.output.once('drain', this.drained);
    return promise;
  }
}
