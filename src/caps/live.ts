/**
 * The sessions the caps face has open: each harness session once, however many references and
 * connections use it — the same one the server's Hub uses (the harness's live registry: a session
 * opened by either face is live for both) — with a bounded buffer of its recent events so a reader that reconnects
 * resumes after its last seq (the session's own per-session sequence number) without a gap.
 */
import { randomUUID } from 'node:crypto';
import { liveRegistry, type Harness, type HarnessSession } from '../harness/index.js';
import type { SessionEvent } from '../session/events.js';
import { CapsError } from './errors.js';

export interface LiveSession {
  hs: HarnessSession;
  /** Recent events, oldest first (at most `retain`). */
  buffer: SessionEvent[];
  /** Seq of the last event seen (0: none yet). */
  lastSeq: number;
  off: () => void;
}

export class LiveSessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly opening = new Map<string, Promise<LiveSession>>();
  private readonly added = new Set<(s: LiveSession) => void>();

  private readonly offShared: () => void;
  /** This face's name in the live registry's holders (one per caps host: two hosts on one harness hold apart). */
  private readonly face = `caps:${randomUUID()}`;

  constructor(
    private readonly harness: Harness,
    private readonly retain = 10_000,
  ) {
    // Sessions another face opens are live here too (their facts, their controllers).
    const shared = liveRegistry(harness);
    this.offShared = shared.onAdded((hs) => {
      this.adopt(hs);
    });
    for (const hs of shared.all()) this.adopt(hs);
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  all(): LiveSession[] {
    return [...this.live.values()];
  }

  onAdded(fn: (s: LiveSession) => void): () => void {
    this.added.add(fn);
    return () => this.added.delete(fn);
  }

  adopt(given: HarnessSession): LiveSession {
    const shared = liveRegistry(this.harness);
    const hs = shared.adopt(given);
    const have = this.live.get(hs.id);
    if (have) return have;
    shared.hold(hs.id, this.face);
    const ls: LiveSession = { hs, buffer: [], lastSeq: 0, off: () => {} };
    ls.off = hs.subscribe((e) => {
      ls.lastSeq = e.seq;
      ls.buffer.push(e);
      if (ls.buffer.length > this.retain) ls.buffer.splice(0, ls.buffer.length - this.retain);
      if (e.type === 'session.closed') this.drop(hs.id);
    });
    this.live.set(hs.id, ls);
    for (const fn of this.added) fn(ls);
    return ls;
  }

  /** The live session, opening the stored one (session/load or restore) when nobody has it open. */
  async open(id: string): Promise<LiveSession> {
    const have = this.live.get(id);
    if (have) return have;
    let p = this.opening.get(id);
    if (!p) {
      p = (async () => {
        if (!this.harness.sessions.find(id)) throw new CapsError('not_found', `not_found: no session ${id}`);
        return this.adopt(await liveRegistry(this.harness).open(id));
      })().finally(() => this.opening.delete(id));
      this.opening.set(id, p);
    }
    return p;
  }

  drop(id: string): void {
    const ls = this.live.get(id);
    if (!ls) return;
    ls.off();
    this.live.delete(id);
    liveRegistry(this.harness).release(id, this.face);
  }

  async close(): Promise<void> {
    this.offShared();
    const all = [...this.live.values()];
    this.live.clear();
    for (const ls of all) ls.off();
    // Only what no other face (the server's Hub) still holds: `serve` closes the rest after its grace.
    const shared = liveRegistry(this.harness);
    await Promise.allSettled(all.filter((ls) => shared.release(ls.hs.id, this.face)).map((ls) => ls.hs.close()));
  }
}
