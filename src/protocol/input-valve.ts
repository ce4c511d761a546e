/**
 * Whether the agent's output is read: input flows only while nothing holds it. The holds are the
 * SDK side being full (backpressure), a yield of one event-loop turn after every YIELD_BYTES (so
 * timers such as setup timeouts fire on time however fast the agent writes), a held FlowGate,
 * and abandonment (a flood of garbage: never read again).
 */
import type { Readable } from 'node:stream';
import type { FlowGate } from './flow-gate.js';

/** Input processed between two turns of the event loop (pause, setImmediate, resume). */
const YIELD_BYTES = 1024 * 1024;

export class InputValve {
  private full = false;
  private yielding = false;
  private abandoned = false;
  // The transport finished: read on to the end so a live writer never blocks on us.
  private draining = false;
  // Set while stopped by the gate: forgets the gate's wake-up.
  private gated: (() => void) | undefined;
  private sinceYield = 0;
  private readonly endYield = (): void => {
    this.yielding = false;
    this.resumeIfFree();
  };
  private readonly gateOpened = (): void => {
    this.gated = undefined;
    this.resumeIfFree();
  };

  constructor(
    private readonly input: Readable,
    private readonly gate: FlowGate | undefined,
  ) {}

  get isFull(): boolean {
    return this.full;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** The SDK side is full: stop until `unfull`. */
  setFull(): void {
    this.full = true;
    this.input.pause();
  }

  unfull(): void {
    this.full = false;
    this.resumeIfFree();
  }

  /** After each chunk of a live transport: yield once a megabyte went by, stop at a held gate. */
  afterRead(bytes: number): void {
    this.sinceYield += bytes;
    if (this.sinceYield >= YIELD_BYTES && !this.yielding) {
      this.sinceYield = 0;
      this.yielding = true;
      this.input.pause();
      setImmediate(this.endYield);
    }
    if (this.gate?.held === true && this.gated === undefined) {
      this.input.pause();
      this.gated = this.gate.whenOpen(this.gateOpened);
    }
  }

  /** Never read again (the caller pauses the input once the transport finished). */
  abandon(): void {
    this.abandoned = true;
  }

  /** The transport finished: forget the gate and drain what is still written. */
  finish(): void {
    this.draining = true;
    const wasGated = this.gated !== undefined;
    this.gated?.();
    this.gated = undefined;
    if (this.full || wasGated) this.input.resume();
  }

  /** Reads again unless something else still holds input. */
  private resumeIfFree(): void {
    if (this.abandoned || this.yielding || this.gated !== undefined) return;
    if (this.draining || !this.full) this.input.resume();
  }
}
