/**
 * The sessions open in this process, one HarnessSession per Talaria id whichever face opened it
 * (the server's Hub for /ws and HTTP, the caps face for /captp): a face that wants a session asks
 * here first, so a session prompted through one face is the same live session for the other, with
 * no second agent session or process. One registry per harness (keyed on it, so the harness
 * itself needs no field); entries leave when their session closes.
 */
import type { Harness, HarnessSession } from './types.js';
import { TalariaError } from '../protocol/errors.js';

export class LiveRegistry {
  private readonly live = new Map<string, HarnessSession>();
  private readonly opening = new Map<string, Promise<HarnessSession>>();
  private readonly added = new Set<(hs: HarnessSession) => void>();
  /** Which faces hold each session: a face that shuts down closes only the sessions no other face holds. */
  private readonly holders = new Map<string, Set<string>>();

  constructor(private readonly harness: Harness) {}

  /** The open session with this id (none once it closed or failed). */
  get(id: string): HarnessSession | undefined {
    const hs = this.live.get(id);
    return hs && hs.state !== 'closed' && hs.state !== 'failed' ? hs : undefined;
  }

  all(): HarnessSession[] {
    return [...this.live.keys()].flatMap((id) => this.get(id) ?? []);
  }

  /** Told of each session that becomes open here, by any face. */
  onAdded(fn: (hs: HarnessSession) => void): () => void {
    this.added.add(fn);
    return () => this.added.delete(fn);
  }

  /** Registers a session a face opened itself (new, fork); the one already open under its id wins. */
  adopt(hs: HarnessSession): HarnessSession {
    const have = this.get(hs.id);
    if (have) return have;
    this.live.set(hs.id, hs);
    const off = hs.subscribe((e) => {
      if (e.type !== 'session.closed') return;
      off();
      if (this.live.get(hs.id) !== hs) return;
      this.live.delete(hs.id);
      this.holders.delete(hs.id);
    });
    for (const fn of [...this.added]) fn(hs);
    return hs;
  }

  /** `face` uses session `id` (until it lets go: release). */
  hold(id: string, face: string): void {
    let h = this.holders.get(id);
    if (!h) this.holders.set(id, (h = new Set()));
    h.add(face);
  }

  /** `face` lets go of session `id`; true when no other face holds it (the caller may close it). */
  release(id: string, face: string): boolean {
    const h = this.holders.get(id);
    h?.delete(face);
    if (h?.size) return false;
    this.holders.delete(id);
    return true;
  }

  /** The open session, else the stored one opened once (load, resume or its stored thread), however many ask at once. */
  open(id: string, o: { provider?: string; profile?: string } = {}): Promise<HarnessSession> {
    const have = this.get(id);
    if (have) return Promise.resolve(have);
    let p = this.opening.get(id);
    if (!p) {
      p = (async () => {
        const row = this.harness.sessions.find(id);
        if (!row) throw new TalariaError('session_not_found', `no stored session ${id}`, { sessionId: id });
        const again = this.get(row.id);
        if (again) return again;
        const ws = row.workspaceId ? this.harness.workspaces.get(row.workspaceId) : undefined;
        return this.adopt(await this.harness.workspaces.open(ws?.path ?? row.cwd).openSession(row.id, o));
      })().finally(() => this.opening.delete(id));
      this.opening.set(id, p);
    }
    return p;
  }
}

const registries = new WeakMap<Harness, LiveRegistry>();

/** The live-session registry of `harness` (made on first use). */
export function liveRegistry(harness: Harness): LiveRegistry {
  let r = registries.get(harness);
  if (!r) {
    r = new LiveRegistry(harness);
    registries.set(harness, r);
  }
  return r;
}
