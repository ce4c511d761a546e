/**
 * The warm pool's policy (issue 16; its mechanics are host.warm / newSpare / claimSpare). Real
 * Hermes needs seconds to answer `initialize` and seconds more for the first `session/new` of a
 * process, so when a workspace is opened its agent is started in the background and, for agents
 * whose `session/list` hides sessions with no history, one spare session is kept per (provider,
 * profile, workspace): "new session" takes it and the next one is made once the taken one's
 * first turn is over (so it never competes with that first answer).
 *
 * A spare is listed nowhere and recorded only when taken; it is closed after `idleMs` unused.
 * At most `maxSpares` are kept (the least recently used goes first) and none is made while the
 * machine has less than `minFreeBytes` of memory available. The workspace's model catalog comes
 * from its spare (or its last session), cached and refreshed in the background when old.
 */
import { freemem } from 'node:os';
import type { AgentHost, AgentTarget, OpenOptions } from '../host/host.js';
import { background } from '../os/background.js';
import type { Logger } from '../protocol/types.js';
import type { Catalog } from '../session/catalog.js';
import type { Session } from '../session/session.js';

export interface WarmOptions {
  /** false: no agent started ahead, no spare kept (config.json `warm: false`). Default true. */
  enabled?: boolean;
  /** A spare unused this long is closed (default 10 min, below the host's 15 min idle reap). */
  idleMs?: number;
  /** Spares kept at once across workspaces (default 4). */
  maxSpares?: number;
  /** No spare is made while less memory than this is available (default 256 MiB). */
  minFreeBytes?: number;
  /** Available memory in bytes (default os.freemem). */
  freeMem?: () => number;
  /** A cached catalog older than this is refreshed in the background when read (default 5 min). */
  catalogTtlMs?: number;
}

interface Entry {
  target: AgentTarget;
  spare?: Session;
  making?: Promise<Session | undefined>;
  timer?: NodeJS.Timeout;
  usedAt: number;
}

const keyOf = (t: AgentTarget) => `${t.provider}\u0000${t.profile ?? ''}\u0000${t.workspace}`;

export class WarmPool {
  readonly enabled: boolean;
  private readonly entries = new Map<string, Entry>();
  private readonly catalogs = new Map<string, { catalog: Catalog; at: number }>();
  private readonly spareIds = new Set<string>();
  private readonly catalogListeners = new Set<(t: AgentTarget, catalog: Catalog, from: Session | undefined) => void>();
  private readonly idleMs: number;
  private readonly maxSpares: number;
  private readonly minFree: number;
  private readonly freeMem: () => number;
  private readonly ttl: number;
  private closed = false;

  constructor(
    private readonly host: AgentHost,
    private readonly logger: Logger,
    o: WarmOptions = {},
    /** The open options of a spare (the workspace's defaults: cwd, permission mode). */
    private readonly openOptions: (t: AgentTarget) => OpenOptions = (t) => t,
  ) {
    this.enabled = o.enabled !== false;
    this.idleMs = o.idleMs ?? 10 * 60_000;
    this.maxSpares = o.maxSpares ?? 4;
    this.minFree = o.minFreeBytes ?? 256 * 1024 * 1024;
    this.freeMem = o.freeMem ?? freemem;
    this.ttl = o.catalogTtlMs ?? 5 * 60_000;
  }

  /** How many spares are ready now (doctor, tests). */
  get ready(): number {
    return this.spareIds.size;
  }

  /** Whether a spare of `provider` (and `profile`) is ready in any workspace: its agent works. */
  hasSpare(provider: string, profile: string | undefined): boolean {
    for (const e of this.entries.values())
      if (e.spare && e.target.provider === provider && (e.target.profile || undefined) === profile) return true;
    return false;
  }

  /** Whether `agentSessionId` is a spare nobody took (lists leave it out). */
  isSpare(agentSessionId: string): boolean {
    return this.spareIds.has(agentSessionId);
  }

  /** Starts `t`'s agent, and a spare where it helps, in the background. */
  warm(t: AgentTarget): void {
    if (!this.enabled || this.closed) return;
    background(this.fill(t), this.logger, 'warming the agent', { provider: t.provider, workspace: t.workspace });
  }

  /** `t`'s agent started and its spare made where it helps (awaitable form of warm()). */
  async prepare(t: AgentTarget): Promise<void> {
    if (!this.enabled || this.closed) return;
    await this.fill(t);
  }

  /** The spare of `t` (waiting for one being made), claimed; undefined: open a session the usual way. */
  async take(t: AgentTarget): Promise<Session | undefined> {
    if (!this.enabled || this.closed) return undefined;
    const e = this.entries.get(keyOf(t));
    if (!e) return undefined;
    e.usedAt = Date.now();
    const s = e.spare ?? (await e.making?.catch(() => undefined));
    // Another caller may have taken it while this one waited.
    if (!s || e.spare !== s) return undefined;
    this.drop(e);
    if (!this.host.claimSpare(s)) {
      background(this.host.closeSession(s, 'stale spare'), this.logger, 'closing a spare session');
      return undefined;
    }
    return s;
  }

  /** The next spare of `t` once `taken` (the session just handed out) finished its first turn or closed. */
  refillAfter(t: AgentTarget, taken: Session): void {
    if (!this.enabled || this.closed) return;
    const off = taken.subscribe((ev) => {
      if (ev.type === 'turn.ended' || (ev.type === 'session.state' && ev.state === 'closed')) {
        off();
        this.warm(t);
      }
    });
  }

  /** Keeps `catalog` as the workspace's for `t` (from a spare or any session opened there: `from`). */
  remember(t: AgentTarget, catalog: Catalog, from?: Session): void {
    if (!(catalog.model || catalog.mode || catalog.others.length)) return;
    this.catalogs.set(keyOf(t), { catalog, at: Date.now() });
    for (const fn of this.catalogListeners) fn(t, catalog, from);
  }

  /** Called with each catalog a warm process (or a session opened in a workspace) reports: the caps face's agent facts. */
  onCatalog(fn: (t: AgentTarget, catalog: Catalog, from: Session | undefined) => void): () => void {
    this.catalogListeners.add(fn);
    return () => this.catalogListeners.delete(fn);
  }

  /**
   * The model catalog of `t` without a visible session: the cached one (refreshed in the
   * background when older than the TTL), else the one of a spare made now. Undefined for an
   * agent that cannot keep spares and has had no session in this workspace yet.
   */
  async catalog(t: AgentTarget): Promise<Catalog | undefined> {
    const k = keyOf(t);
    const cached = this.catalogs.get(k);
    if (cached) {
      if (Date.now() - cached.at > this.ttl) this.refresh(t);
      return cached.catalog;
    }
    if (!this.enabled || this.closed) return undefined;
    await this.fill(t);
    return this.catalogs.get(k)?.catalog;
  }

  /** Stops making spares and closes the ones kept (the host's shutdown ends the rest). */
  async close(): Promise<void> {
    this.closed = true;
    const spares: Session[] = [];
    for (const e of this.entries.values()) {
      if (e.spare) spares.push(e.spare);
      this.drop(e);
    }
    this.entries.clear();
    await Promise.all(spares.map((s) => this.host.closeSession(s, 'warm pool closed').catch(() => undefined)));
  }

  // ---- inside ------------------------------------------------------------------------------------

  private entry(t: AgentTarget): Entry {
    const k = keyOf(t);
    let e = this.entries.get(k);
    if (!e) {
      e = { target: t, usedAt: Date.now() };
      this.entries.set(k, e);
    }
    return e;
  }

  private fill(t: AgentTarget): Promise<Session | undefined> {
    const e = this.entry(t);
    if (e.spare) return Promise.resolve(e.spare);
    e.making ??= this.make(t, e).finally(() => (e.making = undefined));
    return e.making;
  }

  private async make(t: AgentTarget, e: Entry): Promise<Session | undefined> {
    await this.host.warm(t);
    if (this.closed || !this.host.keepsSpares(t) || this.freeMem() < this.minFree) return undefined;
    const s = await this.host.newSpare(this.openOptions(t));
    if (this.closed || this.entries.get(keyOf(t)) !== e) {
      await this.host.closeSession(s, 'warm pool closed');
      return undefined;
    }
    // Room made now, when it is added: made before the await, spares of two workspaces made at
    // once each found room and both were kept (two spares with maxSpares 1).
    this.evict(e);
    e.spare = s;
    this.spareIds.add(s.id);
    this.remember(t, s.catalog, s);
    e.timer = setTimeout(() => {
      if (e.spare !== s) return;
      this.drop(e);
      background(this.host.closeSession(s, 'spare idle'), this.logger, 'closing an idle spare session');
    }, this.idleMs);
    e.timer.unref();
    return s;
  }

  /** Room for one more spare: the least recently used others go. */
  private evict(keep: Entry): void {
    const held = [...this.entries.values()].filter((x) => x !== keep && x.spare).sort((a, b) => a.usedAt - b.usedAt);
    while (held.length >= this.maxSpares) {
      const old = held.shift()!;
      const s = old.spare!;
      this.drop(old);
      background(this.host.closeSession(s, 'spare evicted'), this.logger, 'closing a spare session');
    }
  }

  /** A spare made again (its catalog with it), unless one is being made already. */
  private refresh(t: AgentTarget): void {
    const e = this.entries.get(keyOf(t));
    if (!this.enabled || this.closed || e?.making) return;
    const old = e?.spare;
    if (e && old) {
      this.drop(e);
      background(this.host.closeSession(old, 'spare refreshed'), this.logger, 'closing a spare session');
    }
    this.warm(t);
  }

  private drop(e: Entry): void {
    if (e.timer) clearTimeout(e.timer);
    e.timer = undefined;
    if (e.spare) this.spareIds.delete(e.spare.id);
    e.spare = undefined;
  }
}
