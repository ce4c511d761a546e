/**
 * Frames for a session id nobody has registered yet, held until it is (agents send updates
 * before the `session/new` answer, and the answer itself arrives before the session object
 * exists). The agent decides which ids it sends, so the buffer is bounded three ways: sessions
 * held (oldest evicted), frames per session and bytes in all. What does not fit is dropped and
 * counted, never grown.
 */
import type { Frame } from '../protocol/types.js';

export interface EarlyLimits {
  /** Session ids held at once; a new id evicts the oldest. Default 64. */
  sessions: number;
  /** Frames kept per session id. Default 10,000. */
  framesPerSession: number;
  /** Raw bytes (line lengths) kept in all. Default 32 MiB. */
  bytes: number;
}

export const DEFAULT_EARLY_LIMITS: Readonly<EarlyLimits> = {
  sessions: 64,
  framesPerSession: 10_000,
  bytes: 32 * 1024 * 1024,
};

interface Held {
  frames: Frame[];
  /** Frames of this id dropped so far (the first drop is reported). */
  dropped: number;
}

export class EarlyFrames {
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  /** Frames dropped in all (over a limit, or evicted with their session). */
  dropped = 0;
  private readonly limits: EarlyLimits;

  constructor(
    limits: Partial<EarlyLimits> = {},
    /** Told once per held session id whose frames start being dropped. */
    private readonly onDrop?: (sessionId: string, reason: 'evicted' | 'full') => void,
  ) {
    this.limits = { ...DEFAULT_EARLY_LIMITS, ...limits };
  }

  /** Appends a frame for `sessionId` (`first`: ahead of what is held, e.g. the request that created it). */
  add(sessionId: string, frame: Frame, first = false): void {
    let h = this.held.get(sessionId);
    if (!h) {
      if (this.held.size >= this.limits.sessions) this.evictOldest();
      this.held.set(sessionId, (h = { frames: [], dropped: 0 }));
    }
    if (h.frames.length >= this.limits.framesPerSession || this.heldBytes + frame.raw.length > this.limits.bytes) {
      this.dropped++;
      if (h.dropped++ === 0) this.onDrop?.(sessionId, 'full');
      return;
    }
    this.heldBytes += frame.raw.length;
    if (first) h.frames.unshift(frame);
    else h.frames.push(frame);
  }

  /** Removes and returns what is held for `sessionId`, in order. */
  take(sessionId: string): Frame[] {
    const h = this.held.get(sessionId);
    if (!h) return [];
    this.held.delete(sessionId);
    for (const f of h.frames) this.heldBytes -= f.raw.length;
    return h.frames;
  }

  discard(sessionId: string): void {
    this.take(sessionId);
  }

  private evictOldest(): void {
    const oldest = this.held.keys().next().value;
    if (oldest === undefined) return;
    this.dropped += this.take(oldest).length;
    this.onDrop?.(oldest, 'evicted');
  }

  /** Session ids, frames and bytes held now (tests and diagnostics). */
  get size(): { sessions: number; frames: number; bytes: number } {
    let frames = 0;
    for (const h of this.held.values()) frames += h.frames.length;
    return { sessions: this.held.size, frames, bytes: this.heldBytes };
  }
}
