/**
 * One slot per (provider, profile, workspace): at most one live agent process ("generation")
 * serving all its sessions, spawned lazily on first use. A process is reaped after `idleMs`
 * without work, retired (drained, then closed) when its env changes or after a context
 * overflow, killed when it stalls, and replaced on the next use after a crash — with a
 * backoff when it crashes in a loop. Session-facing operations live in ops.ts.
 */
import type { ConnectionInfo } from '../session/client.js';
import { buildChildEnv } from '../os/env.js';
import { background } from '../os/background.js';
import { TalariaError } from '../protocol/errors.js';
import type { CloseInfo } from '../protocol/connection.js';
import { AGENT_TAG_VAR, newAgentTag } from '../os/proc-tree.js';
import type { Logger } from '../protocol/types.js';
import { agentEnv } from '../providers/launch.js';
import {
  applyQuirks,
  choiceBeforeInit,
  launchFacts,
  summarize,
  type AppliedQuirks,
  type QuirkChoice,
  type QuirkSummary,
} from '../providers/quirks/index.js';
import type { Provider, ProviderEnv } from '../providers/types.js';
import { CrashTracker } from './backoff.js';
import type { SessionBinding } from './binding.js';
import { crashedBeforeInit, recordCrash } from './crash.js';
import type { AgentKey, ExitReason } from './events.js';
import { Gate } from './gate.js';
import { Generation } from './generation.js';
import type { Emit, SlotConfig, SlotPart } from './parts.js';
import { startProcess } from './start.js';
import { killGroup, type AgentTrees } from './tree.js';
import { armWatchdog } from './watchdog.js';

export class AgentSlot implements SlotPart {
  readonly bindings = new Map<string, SessionBinding>();
  /** Live processes, the current one and any still draining. */
  readonly gens = new Set<Generation>();
  current: Generation | null = null;
  /** What the newest process said in `initialize` (kept after it is gone). */
  info: ConnectionInfo | undefined;
  readonly gate: Gate;
  readonly crashes: CrashTracker;
  closed = false;
  private starting: Promise<Generation> | null = null;
  private genSeq = 0;
  private caps = { image: false, audio: false, embeddedContext: false };
  /** The quirks of the agent this slot runs (the launch's guess until a process said what it is). */
  quirks: AppliedQuirks;
  /** What the last process said it is: the next one gets its capabilities from the start. */
  private learned: QuirkChoice | undefined;

  constructor(
    readonly key: AgentKey,
    readonly provider: Provider,
    readonly ctx: ProviderEnv,
    readonly cfg: SlotConfig,
    readonly logger: Logger,
    readonly emit: Emit,
    private readonly workspaceEnv: () => Record<string, string>,
    /** The host's list of live agent trees (its exit hook). */
    private readonly trees: AgentTrees,
  ) {
    this.gate = new Gate(provider.maxConcurrentTurns);
    this.crashes = new CrashTracker(cfg.backoff);
    this.learned = cfg.learned;
    this.quirks = applyQuirks(
      provider,
      choiceBeforeInit(launchFacts(provider, cfg.learned ? { learned: cfg.learned } : {})),
    );
  }

  get label(): string {
    return this.provider.label;
  }

  promptCaps() {
    return this.caps;
  }

  /** The env a process started now would get (what is frozen into it). */
  currentEnv(): Record<string, string> {
    return agentEnv(this.provider, this.ctx, this.workspaceEnv());
  }

  // ---- processes ------------------------------------------------------------------------------

  /** The live process, spawned if there is none (single flight; fails fast during a backoff). */
  ensure(): Promise<Generation> {
    if (this.closed) return Promise.reject(new TalariaError('invalid_state', 'the agent host is shut down'));
    const cur = this.current;
    if (cur && cur.alive && !cur.retiring) return Promise.resolve(cur);
    if (this.starting) return this.starting;
    const until = this.crashes.blockedUntil();
    if (until !== undefined) {
      const secs = Math.ceil((until - Date.now()) / 1000);
      return Promise.reject(
        new TalariaError(
          'spawn_failed',
          `${this.label} crashed ${this.crashes.crashes} times in a row; not starting it again for ${secs} s. Last error: ${this.crashes.lastError}`,
          { backoff: true, retryAt: until, crashes: this.crashes.crashes },
        ),
      );
    }
    this.starting = this.spawn().finally(() => (this.starting = null));
    return this.starting;
  }

  private async spawn(): Promise<Generation> {
    const profile = this.key.profile;
    const located = await this.provider.locate(this.ctx, profile ? { profile } : {});
    if (!located) {
      throw new TalariaError('spawn_failed', `${this.label} was not found. ${this.provider.install}`, {
        provider: this.provider.id,
      });
    }
    const env = this.currentEnv();
    const { gen, started } = await startProcess(
      {
        key: this.key,
        cfg: this.cfg,
        provider: this.provider,
        logger: this.logger,
        // Commands the agent runs get the basics and the workspace's env, never the agent's
        // credentials — and the agent's tag: they are its work too (a cancel or stop ends them).
        terminalEnv: (tag) => buildChildEnv(process.env, { set: { ...this.workspaceEnv(), [AGENT_TAG_VAR]: tag } }),
        // Per process: a cancel or a stop ends this process's tree only, whatever else runs.
        nextGeneration: () => new Generation(++this.genSeq, env, newAgentTag()),
        crashedBeforeInit: (g, e) => crashedBeforeInit(this, g, e),
      },
      located,
      env,
      this.learned,
    );
    const client = started.client;
    this.quirks = started.quirks;
    if (started.quirks.choice.agent) this.learned = started.quirks.choice;
    gen.client = client;
    this.info = client.info;
    const proc = client.connection.process;
    gen.pid = proc?.pid ?? null;
    gen.startTicks = proc?.startTicks;
    if (gen.pid !== null) this.trees.own({ pid: gen.pid, tag: gen.tag, start: gen.startTicks });
    const c = client.capabilities;
    this.caps = { image: c.promptImage, audio: c.promptAudio, embeddedContext: c.promptEmbeddedContext };
    this.gens.add(gen);
    this.current = gen;
    const quirks = {
      ...summarize(started.quirks.choice),
      ...(started.restartedFrom ? { restartedFrom: started.restartedFrom.choice.set.id } : {}),
    };
    this.emit('agent.spawned', {
      key: this.key,
      generation: gen.n,
      pid: gen.pid ?? -1,
      command: located.command,
      args: located.args,
      quirks,
    });
    background(
      client.closed.then((info) => this.onClosed(gen, info)),
      this.logger,
      'cleaning up after the agent exited',
      { pid: gen.pid },
    );
    if (this.closed) {
      // Shut down while it was starting: it must not outlive the host.
      await this.closeGen(gen, 'shutdown');
      throw new TalariaError('invalid_state', 'the agent host is shut down');
    }
    this.afterWork(gen);
    return gen;
  }

  private async onClosed(gen: Generation, info: CloseInfo): Promise<void> {
    gen.dead = true;
    gen.clearTimers();
    if (this.current === gen) this.current = null;
    const reason: ExitReason = gen.exitReason ?? 'crashed';
    const orphaned = [...this.bindings.values()].filter((b) => b.gen === gen);
    for (const b of orphaned) {
      b.gen = null;
      if (reason === 'crashed') b.lost = reason;
    }
    if (reason === 'crashed') {
      const tail = info.stderrTail ?? gen.client.connection.process?.stderrTail(2000) ?? '';
      recordCrash(
        this,
        gen,
        info.error.message,
        { pid: gen.pid, exitCode: info.exitCode ?? null, signal: info.signal ?? null, stderrTail: tail },
        orphaned.map((b) => b.id),
      );
    } else if (reason === 'stalled')
      recordCrash(this, gen, `stopped after ${this.cfg.stallMs} ms of silence`, null, []);
    if (gen.pid !== null) {
      await killGroup(gen.pid, this.cfg.terminateGraceMs);
      // Then what it started outside its group (idempotent: a stop on purpose already began it).
      await gen.client.connection.process?.terminate({ graceMs: this.cfg.terminateGraceMs });
      this.trees.release(gen.pid);
    }
    this.gens.delete(gen);
    this.emit('agent.exited', {
      key: this.key,
      generation: gen.n,
      pid: gen.pid,
      reason,
      exitCode: info.exitCode ?? null,
      signal: info.signal ?? null,
    });
    gen.markGone();
  }

  /** Close a process on purpose: its sessions are detached first (they stay idle, not failed). */
  closeGen(gen: Generation, reason: ExitReason): Promise<void> {
    if (gen.exitReason !== undefined || gen.dead) return gen.gone;
    gen.exitReason = reason;
    gen.clearTimers();
    if (this.current === gen) this.current = null;
    for (const b of this.bindings.values()) {
      if (b.gen !== gen) continue;
      gen.client.detach(b.session);
      b.gen = null;
      // Killed for a stall is a fault the user hears of (idle, env and shutdown stops are not).
      if (reason === 'stalled') b.lost = 'stalled';
    }
    const proc = gen.client.connection.process;
    background(proc?.terminate({ graceMs: this.cfg.terminateGraceMs }), this.logger, 'terminating the agent', {
      pid: gen.pid,
    });
    background(gen.client.close(), this.logger, 'closing the agent connection', { pid: gen.pid });
    return gen.gone;
  }

  /** No new work for `gen`: close it once its in-flight work is done. */
  retire(gen: Generation, reason: ExitReason): void {
    if (!gen.alive) return;
    gen.retiring ??= reason;
    if (this.current === gen) this.current = null;
    this.afterWork(gen);
  }

  /** Called whenever work on `gen` finished: drain a retiring process, or arm the idle reaper. */
  afterWork(gen: Generation): void {
    if (!gen.alive || !gen.idle) return;
    if (gen.retiring) {
      background(this.closeGen(gen, gen.retiring), this.logger, 'retiring the agent', { pid: gen.pid });
      return;
    }
    if (!Number.isFinite(this.cfg.idleMs)) return;
    if (gen.idleTimer) clearTimeout(gen.idleTimer);
    gen.idleTimer = setTimeout(() => {
      gen.idleTimer = undefined;
      if (gen.alive && gen.idle && this.reapable(gen))
        background(this.closeGen(gen, 'idle'), this.logger, 'reaping the idle agent', { pid: gen.pid });
    }, this.cfg.idleMs);
    gen.idleTimer.unref();
  }

  /** Work starts on `gen` (for session `owner`, or nobody's in particular): no reaping meanwhile. */
  beginWork(gen: Generation, owner: string | null = null): void {
    gen.busy++;
    gen.ledger.begin(owner);
    if (gen.idleTimer) clearTimeout(gen.idleTimer);
    gen.idleTimer = undefined;
  }

  endWork(gen: Generation, owner: string | null = null): void {
    gen.busy--;
    gen.ledger.end(owner);
    // Also catches an env change made while this process was still starting.
    if (gen.alive && !gen.retiring && !sameEnv(gen.env, this.currentEnv())) return this.retire(gen, 'env_changed');
    this.afterWork(gen);
  }

  /** A process may be reaped only if every session on it can be loaded again later. */
  private reapable(gen: Generation): boolean {
    const bound = [...this.bindings.values()].some((b) => b.gen === gen);
    return !bound || (this.quirks.sessionsSurviveRestart && gen.client.capabilities.supportsLoad);
  }

  /** The env to spawn with changed: processes started with the old one are replaced once idle. */
  envChanged(): void {
    const env = this.currentEnv();
    for (const gen of this.gens) if (gen.alive && !sameEnv(gen.env, env)) this.retire(gen, 'env_changed');
  }

  // ---- stall watchdog (watchdog.ts) ------------------------------------------------------------

  armWatchdog(gen: Generation, ms = this.cfg.stallMs): void {
    armWatchdog(this, gen, ms);
  }

  // ---- end ------------------------------------------------------------------------------------

  async shutdown(): Promise<void> {
    this.closed = true;
    // A process still starting closes itself once up (see spawn()).
    await this.starting?.catch(() => undefined);
    for (const b of [...this.bindings.values()]) b.session.markClosed('agent host shut down');
    await Promise.all([...this.gens].map((g) => this.closeGen(g, 'shutdown')));
  }

  status(): SlotStatus {
    const cur = this.current;
    const retryAt = this.crashes.blockedUntil();
    return {
      key: this.key,
      state: cur ? 'running' : retryAt !== undefined ? 'backoff' : this.starting ? 'starting' : 'stopped',
      ...(cur ? { pid: cur.pid, generation: cur.n, runningTurns: cur.running.size } : {}),
      // Spares (warm pool) are nobody's sessions yet.
      sessions: [...this.bindings.values()].filter((b) => !b.spare).map((b) => b.id),
      crashes: this.crashes.crashes,
      ...(retryAt !== undefined ? { retryAt } : {}),
      quirks: summarize(this.quirks.choice),
    };
  }
}

export interface SlotStatus {
  key: AgentKey;
  state: 'running' | 'starting' | 'stopped' | 'backoff';
  pid?: number | null;
  generation?: number;
  runningTurns?: number;
  sessions: string[];
  crashes: number;
  retryAt?: number;
  /** The agent's quirk set and why (the launch's guess until a process answered initialize). */
  quirks: QuirkSummary;
}

function sameEnv(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
