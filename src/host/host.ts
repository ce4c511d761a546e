/**
 * The agent host: one agent process per (provider, profile, workspace), many sessions in it,
 * supervised so faults stay out of the user's way (see slot.ts for the process rules and
 * binding.ts for how Session objects survive process replacement).
 *
 *   const host = new AgentHost({ registry });
 *   const s = await host.newSession({ provider: 'hermes', workspace: '/proj' });
 *   const turn = s.prompt('hi'); await turn.result;
 *   await host.shutdown();
 */
import { resolve } from 'node:path';
import type { Frame, Logger, ProtocolErrorEvent } from '../protocol/types.js';
import type { FlowGate } from '../protocol/flow-gate.js';
import { silentLogger } from '../protocol/types.js';
import { TalariaError } from '../protocol/errors.js';
import type { PermissionDecisionEvent, PermissionMode, PermissionRule } from '../permission/types.js';
import { EventBus } from '../session/bus.js';
import type { ConnectionInfo, SessionListing } from '../session/client.js';
import type { Session } from '../session/session.js';
import type { SeedPlan } from './binding.js';
import { currentEnv } from '../providers/locate.js';
import {
  applyQuirks,
  choiceBeforeInit,
  choiceForAgent,
  launchFacts,
  type QuirkChoice,
} from '../providers/quirks/index.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderEnv } from '../providers/types.js';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';
import type { AgentKey, HostEvent, HostEventName, HostEventOf } from './events.js';
import { openSession, type OpenKind } from './open.js';
import { SlotSessions } from './ops.js';
import { AgentSlot, type SlotStatus } from './slot.js';
import { AgentTrees } from './tree.js';

export interface HostOptions {
  registry: ProviderRegistry;
  /** Where providers are looked up and which parent variables they may receive (default: this machine). */
  env?: ProviderEnv;
  logger?: Logger;
  /** Reap a process after this long without work (default 15 min; Infinity: never). */
  idleMs?: number;
  /** A turn with no frame from the agent for this long is stalled (default 10 min; Infinity: off). */
  stallMs?: number;
  /** After a stall's cancel, how long the agent may stay silent before it is killed (default 30 s). */
  cancelGraceMs?: number;
  /** Grace between stdin close, SIGTERM and SIGKILL (default 2 s). */
  terminateGraceMs?: number;
  /** Timeout of initialize and session setup requests (default 120 s). */
  setupTimeoutMs?: number;
  /** Largest prompt a session takes (default 8 MiB: session/core.ts DEFAULT_MAX_PROMPT_BYTES). */
  maxPromptBytes?: number;
  /**
   * What an earlier process of an agent said in `initialize` (the store keeps it): its quirk set
   * before any process of it runs here — a Hermes started by a custom command keeps spares too.
   */
  agentIdentity?: (provider: string) => { name: string; version?: string } | undefined;
  backoff?: Partial<BackoffPolicy>;
  permission?: { mode?: PermissionMode; rules?: PermissionRule[]; timeoutMs?: number };
  /** Per-workspace env set in the agent (e.g. config.json's workspaces[ws].env). */
  workspaceEnv?: (workspace: string) => Record<string, string> | undefined;
  /** Every frame of every agent process (each session's own frames: Session.subscribeFrames). */
  onFrame?: (key: AgentKey, frame: Frame) => void;
  /**
   * Called with every Session the host creates, before any of its frames or events: subscribe
   * here to see a session's whole wire log (its setup included) before it is handed out.
   */
  onSession?: (session: Session, key: AgentKey) => void;
  onProtocolError?: (key: AgentKey, e: ProtocolErrorEvent) => void;
  onPermissionDecision?: (e: PermissionDecisionEvent) => void;
  onRule?: (sessionId: string, rule: PermissionRule) => void;
  /** While held, no agent's output is read: what they say waits in their pipes (`talaria acp`'s full stdout). */
  flowGate?: FlowGate;
  /** SIGKILL our agents' process trees if this process exits without shutdown() (default true). */
  killOnExit?: boolean;
  /**
   * Talaria's home: an agent's auth_required leaves a mark there that readiness shows as an `auth`
   * gap (providers/auth.ts), and a session that opens removes it. Absent: no marks (an embedder's host).
   */
  authHome?: string;
}

export interface AgentTarget {
  provider: string;
  profile?: string;
  /** The workspace folder: the agent process runs there (and it is part of the process key). */
  workspace: string;
}

export interface OpenOptions extends AgentTarget {
  /** The session's cwd (default: the workspace). */
  cwd?: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
  permissionMode?: PermissionMode;
}

export class AgentHost {
  private readonly slots = new Map<string, SlotSessions>();
  private readonly bus: EventBus<HostEvent>;
  private readonly logger: Logger;
  private readonly ctx: ProviderEnv;
  private readonly envOverrides = new Map<string, Record<string, string>>();
  /** This host's agent processes and its exit hook (nothing of it is module-wide). */
  private readonly trees: AgentTrees;
  private seq = 0;
  private down = false;

  constructor(private readonly o: HostOptions) {
    this.logger = o.logger ?? silentLogger;
    this.trees = new AgentTrees(o.killOnExit ?? true);
    this.ctx = o.env ?? currentEnv({ logger: this.logger });
    this.bus = new EventBus((err) => this.logger.error('host listener threw', { error: String(err) }));
  }

  subscribe(fn: (e: HostEvent) => void): () => void {
    return this.bus.subscribe(fn);
  }

  events(opts: { signal?: AbortSignal } = {}): AsyncIterableIterator<HostEvent> {
    return this.bus.iterate(opts);
  }

  private emit<K extends HostEventName>(type: K, body: Omit<HostEventOf<K>, 'type' | 'seq' | 'at'>): void {
    this.bus.emit({ type, seq: ++this.seq, at: Date.now(), ...body } as unknown as HostEvent);
  }

  private keyOf(t: AgentTarget): AgentKey {
    const provider = this.o.registry.require(t.provider);
    const key: AgentKey = { provider: provider.id, workspace: resolve(t.workspace) };
    if (provider.profiles && t.profile) key.profile = t.profile;
    return key;
  }

  private slot(t: AgentTarget): SlotSessions {
    const key = this.keyOf(t);
    const id = slotId(key);
    let ops = this.slots.get(id);
    if (!ops) {
      const o = this.o;
      const slot = new AgentSlot(
        key,
        o.registry.require(key.provider),
        this.ctx,
        {
          idleMs: o.idleMs ?? 15 * 60_000,
          stallMs: o.stallMs ?? 10 * 60_000,
          cancelGraceMs: o.cancelGraceMs ?? 30_000,
          terminateGraceMs: o.terminateGraceMs ?? 2_000,
          setupTimeoutMs: o.setupTimeoutMs ?? 120_000,
          ...(o.maxPromptBytes !== undefined ? { maxPromptBytes: o.maxPromptBytes } : {}),
          ...this.learnedFor(key.provider),
          backoff: { ...DEFAULT_BACKOFF, ...(o.backoff ?? {}) },
          ...(o.permission ? { permission: o.permission } : {}),
          ...(o.onFrame ? { onFrame: o.onFrame } : {}),
          ...(o.onSession ? { onSession: o.onSession } : {}),
          ...(o.onProtocolError ? { onProtocolError: o.onProtocolError } : {}),
          ...(o.onPermissionDecision ? { onPermissionDecision: o.onPermissionDecision } : {}),
          ...(o.onRule ? { onRule: o.onRule } : {}),
          ...(o.authHome ? { authHome: o.authHome } : {}),
          ...(o.flowGate ? { flowGate: o.flowGate } : {}),
        },
        this.logger,
        (type, body) => this.emit(type, body),
        () => this.envFor(key.workspace),
        this.trees,
      );
      ops = new SlotSessions(slot, () => o.permission?.rules ?? []);
      this.slots.set(id, ops);
    }
    return ops;
  }

  private envFor(workspace: string): Record<string, string> {
    return this.envOverrides.get(workspace) ?? this.o.workspaceEnv?.(workspace) ?? {};
  }

  private async open(kind: OpenKind, o: OpenOptions, sessionId?: string, spare = false): Promise<Session> {
    if (this.down) throw new TalariaError('invalid_state', 'the agent host is shut down');
    const ops = this.slot(o);
    return openSession(ops, {
      kind,
      ...(sessionId !== undefined ? { sessionId } : {}),
      cwd: resolve(o.cwd ?? o.workspace),
      ...(o.additionalDirectories ? { additionalDirectories: o.additionalDirectories.map((d) => resolve(d)) } : {}),
      ...(o.mcpServers ? { mcpServers: o.mcpServers } : {}),
      permissionMode: o.permissionMode ?? this.o.permission?.mode ?? 'ask',
      ...(spare ? { spare: true } : {}),
    });
  }

  newSession(o: OpenOptions): Promise<Session> {
    return this.open('new', o);
  }

  // ---- the warm pool's mechanics (its policy is in harness/warm-pool.ts) --------------------------

  /** Starts the agent process of `t` without any session (no-op when it runs); resolves once it answered initialize. */
  async warm(t: AgentTarget): Promise<ConnectionInfo | undefined> {
    if (this.down) throw new TalariaError('invalid_state', 'the agent host is shut down');
    const { slot } = this.slot(t);
    await slot.ensure();
    return slot.info;
  }

  /** Whether `t`'s agent hides sessions with no history (what it said in initialize, else its launch's guess). */
  keepsSpares(t: AgentTarget): boolean {
    const provider = this.o.registry.get(t.provider);
    if (!provider) return false;
    const slot = this.slots.get(slotId(this.keyOf(t)))?.slot;
    // No slot made just to ask (agents() lists every slot).
    const quirks =
      slot?.quirks ?? applyQuirks(provider, choiceBeforeInit(launchFacts(provider, this.learnedFor(t.provider))));
    return quirks.host.spareSessions === true;
  }

  /** The quirk choice an earlier process of the agent made known (any slot here, else the store). */
  private learnedFor(provider: string): { learned?: QuirkChoice } {
    for (const ops of this.slots.values()) {
      const c = ops.slot.quirks.choice;
      if (ops.slot.key.provider === provider && c.basis === 'agent') return { learned: c };
    }
    const said = this.o.agentIdentity?.(provider);
    return said ? { learned: choiceForAgent(said, 'an earlier process of this agent named itself') } : {};
  }

  /** A new session kept ready: in no list (agents(), the store) until claimSpare hands it out. */
  newSpare(o: OpenOptions): Promise<Session> {
    return this.open('new', o, undefined, true);
  }

  /**
   * Hands a spare out (true), or says it cannot be: its process is gone or going, or it is not an
   * idle spare of this host (false: close it and open another).
   */
  claimSpare(session: Session): boolean {
    const b = this.find(session)?.slot.bindings.get(session.id);
    const gen = b?.gen;
    if (!b?.spare || !gen || !gen.alive || gen.retiring || session.state !== 'idle') return false;
    b.spare = false;
    return true;
  }

  /** Opens a stored session; the agent replays its history into the thread. */
  loadSession(sessionId: string, o: OpenOptions): Promise<Session> {
    return this.open('load', o, sessionId);
  }

  resumeSession(sessionId: string, o: OpenOptions): Promise<Session> {
    return this.open('resume', o, sessionId);
  }

  forkSession(sessionId: string, o: OpenOptions): Promise<Session> {
    return this.open('fork', o, sessionId);
  }

  /** The agent's own session list (starts the process if needed). */
  async listSessions(t: AgentTarget & { cwd?: string }): Promise<SessionListing[]> {
    const { slot } = this.slot(t);
    const gen = await slot.ensure();
    slot.beginWork(gen);
    try {
      return await gen.client.listSessions(t.cwd ? { cwd: resolve(t.cwd) } : {});
    } finally {
      slot.endWork(gen);
    }
  }

  /**
   * The next prompt of `session` goes to a fresh agent session seeded with its thread (see
   * reseed.ts): an overflow recorded by an earlier process, a rewind, a continuation. False when
   * the host does not serve the session.
   */
  seedNext(session: Session, plan: SeedPlan): boolean {
    const b = this.find(session)?.slot.bindings.get(session.id);
    if (!b) return false;
    b.seed = plan;
    return true;
  }

  private find(session: Session): SlotSessions | undefined {
    for (const ops of this.slots.values()) if (ops.slot.bindings.get(session.id)?.session === session) return ops;
    return undefined;
  }

  /** Which process key serves a session. */
  targetOf(session: Session): AgentKey | undefined {
    return this.find(session)?.slot.key;
  }

  /** What the agent behind `key` said in its last `initialize` (undefined before it ever started). */
  connectionInfo(key: AgentKey): ConnectionInfo | undefined {
    return this.slots.get(slotId(key))?.slot.info;
  }

  /** Cancels what runs, tells the agent when it supports close, and forgets the session. */
  async closeSession(session: Session, reason = 'closed by client'): Promise<void> {
    const ops = this.find(session);
    const gen = ops?.slot.bindings.get(session.id)?.gen;
    if (gen && gen.alive) await gen.client.closeSession(session, reason);
    else session.markClosed(reason);
  }

  /**
   * Sets the env a workspace's agents run with. Processes started with other values are
   * restarted once idle (their env is frozen at spawn); sessions reload on next use.
   */
  setWorkspaceEnv(workspace: string, env: Record<string, string>): void {
    const ws = resolve(workspace);
    this.envOverrides.set(ws, { ...env });
    for (const ops of this.slots.values()) if (ops.slot.key.workspace === ws) ops.slot.envChanged();
  }

  agents(): SlotStatus[] {
    return [...this.slots.values()].map((ops) => ops.slot.status());
  }

  /**
   * Closes every session and stops every agent process tree (stdin close → SIGTERM → SIGKILL,
   * then whatever each agent started outside its group); the host's exit hook goes with them.
   */
  async shutdown(): Promise<void> {
    this.down = true;
    await Promise.all([...this.slots.values()].map((ops) => ops.slot.shutdown()));
  }

  /** shutdown(), and nothing of this host is left in the process (no hook, no listener). */
  async dispose(): Promise<void> {
    try {
      await this.shutdown();
    } finally {
      this.trees.dispose();
    }
  }

  /** For exit paths that cannot wait: SIGKILL every process tree this host owns, now. */
  killAllSync(): void {
    this.trees.killAllSync();
  }
}

function slotId(key: AgentKey): string {
  return `${key.provider}\u0000${key.profile ?? ''}\u0000${key.workspace}`;
}
