/**
 * A session's frames from the moment the host creates it until it is recorded: the handshake,
 * its `session/new` (or the replay of a `session/load`) and the setup that follows happen before
 * the harness has a store row to record them under. They are held here, bounded, and handed to
 * the recorder first. Sessions that never get recorded (a failed open) take theirs with them.
 */
import type { Frame } from '../protocol/types.js';
import type { Session } from '../session/session.js';

export interface SetupLimits {
  /** Frames held per session (a long `session/load` replay). Default 100,000. */
  frames: number;
  /** Raw bytes held per session. Default 64 MiB. */
  bytes: number;
}

const DEFAULTS: SetupLimits = { frames: 100_000, bytes: 64 * 1024 * 1024 };

interface Held {
  frames: Frame[];
  bytes: number;
  /** Frames that did not fit (reported as lost by the recorder). */
  dropped: number;
  off: () => void;
}

export class SetupFrames {
  private readonly held = new WeakMap<Session, Held>();
  private readonly limits: SetupLimits;

  constructor(limits: Partial<SetupLimits> = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  /** Starts holding `session`'s frames (call before any of them can arrive). */
  begin(session: Session): void {
    if (this.held.has(session)) return;
    const h: Held = { frames: [], bytes: 0, dropped: 0, off: () => undefined };
    h.off = session.subscribeFrames((f) => {
      if (h.frames.length >= this.limits.frames || h.bytes + f.raw.length > this.limits.bytes) {
        h.dropped++;
        return;
      }
      h.frames.push(f);
      h.bytes += f.raw.length;
    });
    this.held.set(session, h);
  }

  /** Stops holding and returns what was held (in wire order) and how many frames did not fit. */
  take(session: Session): { frames: Frame[]; dropped: number } {
    const h = this.held.get(session);
    if (!h) return { frames: [], dropped: 0 };
    this.held.delete(session);
    h.off();
    return { frames: h.frames, dropped: h.dropped };
  }
}
