/**
 * Where an inbound message goes once it passed the checks: the `divert` hook first (the session
 * router takes `session/update` here, synchronously, in arrival order), and only what is left to
 * the Web ReadableStream the SDK reads. Because the SDK reads that stream asynchronously,
 * everything diverted before a response has been handled before the SDK can resolve the request.
 */
import type { InputValve } from './input-valve.js';
import type { TransportHooks, TransportStats } from './transport-types.js';
import type { RawMessage } from './types.js';

export class InboundQueue {
  readonly readable: ReadableStream<RawMessage>;
  private controller!: ReadableStreamDefaultController<RawMessage>;
  // The SDK stopped reading (it closed itself): what it would get is dropped.
  private cancelled = false;

  constructor(
    private readonly hooks: TransportHooks,
    private readonly stats: TransportStats,
    private readonly valve: InputValve,
    highWaterMark: number,
  ) {
    this.readable = new ReadableStream<RawMessage>(
      {
        start: (c) => {
          this.controller = c;
        },
        pull: () => {
          if (this.valve.isFull && !this.valve.isDraining) this.valve.unfull();
        },
        cancel: () => {
          this.cancelled = true;
          if (this.valve.isFull) this.valve.unfull();
        },
      },
      { highWaterMark },
    );
  }

  /** Divert or queue one message; a full queue pauses the input (the hooks may throw). */
  deliver(msg: RawMessage): void {
    const divert = this.hooks.divert;
    if (divert !== undefined && divert(msg)) {
      this.stats.diverted++;
      return;
    }
    if (this.cancelled) return;
    this.controller.enqueue(msg);
    if (!this.valve.isFull && (this.controller.desiredSize ?? 1) <= 0) this.valve.setFull();
  }

  /** close(), not error(): messages already queued (a final response) still reach the SDK. */
  close(): void {
    try {
      this.controller.close();
    } catch {
      /* already closed */
    }
  }
}
