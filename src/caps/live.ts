/**
 * The sessions the caps face has open: each harness session once, however many references and
 * connections use it, with a bounded buffer of its recent events so a reader that reconnects
 * resumes after its last seq (the session's own per-session sequence number) without a gap.
 */
import type { Harness, HarnessSession } from '../harness/index.js';
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

  constructor(
    private readonly harness: Harness,
    private readonly retain = 10_000,
  ) {}

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

  adopt(hs: HarnessSession): LiveSession {
    const have = this.live.get(hs.id);
    if (have) return have;
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
        const row = this.harness.sessions.find(id);
        if (!row) throw new CapsError('not_found', `not_found: no session ${id}`);
        const ws = this.harness.workspaces.list().find((w) => w.id === row.workspaceId);
        const hs = await this.harness.workspaces.open(ws?.path ?? row.cwd).openSession(row.id);
        return this.adopt(hs);
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
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    for (const ls of all) ls.off();
    await Promise.allSettled(all.map((ls) => ls.hs.close()));
  }
}
