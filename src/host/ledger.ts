/**
 * What the reaper needs to know of one agent process's past work (reaper.ts): its own file so
 * the process record (generation.ts) can keep one without importing the reaper.
 */
import { performance } from 'node:perf_hooks';

type Owner = string | null;

/**
 * When work ran on one agent process, and for whom (a session id; null: nobody's in particular,
 * e.g. setting up a new session). Times are performance.now() milliseconds.
 */
export class WorkLedger {
  private readonly open = new Map<Owner, { n: number; since: number }>();
  private closed: { owner: Owner; from: number; to: number }[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  begin(owner: Owner): void {
    const w = this.open.get(owner);
    if (w) w.n++;
    else this.open.set(owner, { n: 1, since: this.now() });
  }

  end(owner: Owner): void {
    const w = this.open.get(owner);
    if (!w || --w.n > 0) return;
    this.open.delete(owner);
    this.closed.push({ owner, from: w.since, to: this.now() });
    // A window that ended before every open one began can no longer overlap a running turn.
    const oldest = Math.min(...[...this.open.values()].map((o) => o.since));
    this.closed = this.closed.filter((c) => c.to >= oldest);
  }

  /** Windows of work for anyone but `owner` that overlap [from, now] (open ones end at Infinity). */
  foreign(owner: Owner, from: number): [number, number][] {
    const out: [number, number][] = [];
    for (const [o, w] of this.open) if (o !== owner) out.push([w.since, Infinity]);
    for (const c of this.closed) if (c.owner !== owner && c.to >= from) out.push([c.from, c.to]);
    return out;
  }

  /** Windows kept (bounded by the work in flight). */
  get size(): number {
    return this.open.size + this.closed.length;
  }
}
