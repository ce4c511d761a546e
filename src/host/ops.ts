/**
 * The session side of a slot: every request a hosted Session makes goes through here (its
 * port). Before anything reaches the agent the session is bound to the live process — loaded
 * into it first when it is new (after a crash, reap, env change or overflow), with its MCP
 * servers, model and mode restored. Prompts pass the per-process concurrency gate and are
 * watched by the stall watchdog; each new process restarts the session's usage counters.
 */
import { TalariaError } from '../protocol/errors.js';
import type { PermissionRule } from '../permission/types.js';
import { authRequired } from '../session/errors.js';
import { noteAuthRequired } from './auth-mark.js';
import { followSession } from './follow.js';
import type { SessionHooks } from '../session/hooks.js';
import type { Session } from '../session/session.js';
import { SessionBinding, type BindingOwner } from './binding.js';
import type { Generation } from './generation.js';
import type { ReqOpts, SessionsPart } from './parts.js';
import type { AgentSlot } from './slot.js';
import { loadInto, restoreChoices } from './restore.js';
import { afterCancel, reapTurn, type TurnWork } from './reaper.js';
import { isCommand, reseat } from './reseed.js';
import { agentSteer } from './steer.js';
import type { SteerOutcome } from '../session/core.js';
import type { ContentBlock } from '../thread/types.js';

const CANCELLED = Object.freeze({ stopReason: 'cancelled' });
const CONFIG_METHODS = new Set(['session/set_model', 'session/set_mode', 'session/set_config_option', 'session/load']);

export class SlotSessions implements BindingOwner, SessionsPart {
  /** Prompts in flight, for the reaper: a cancel ends the processes their turn started. */
  private readonly turns = new Map<SessionBinding, TurnWork>();

  constructor(
    readonly slot: AgentSlot,
    private readonly baseRules: () => PermissionRule[],
  ) {}

  // ---- bindings -------------------------------------------------------------------------------

  /** The hooks of the quirk set that follows the agent (what its process said in initialize). */
  hooks(): SessionHooks {
    const { quirks, key, ctx } = this.slot;
    // Hooks that read the agent's own files look where the agent does: its env as spawned.
    const env = { ...ctx, env: { ...ctx.env, ...(this.slot.current?.env ?? this.slot.currentEnv()) } };
    const h: SessionHooks = { ...quirks.hooks({ ...(key.profile ? { profile: key.profile } : {}), env }) };
    // The session makes cumulative usage per-turn; the host resets it for each new process.
    h.usageMode = quirks.usage === 'cumulative' ? 'cumulative' : 'per-turn';
    // The host reloads right after set_model, inside the same op (no prompt can slip in between).
    if (quirks.host.reloadAfterSetModel) delete h.afterSetModel;
    return h;
  }

  create(o: {
    id: string;
    cwd: string;
    additionalDirectories?: string[];
    mcpServers: unknown[];
    permissionMode: Session['permissionMode'];
    spare?: boolean;
  }): SessionBinding {
    const { spare, ...init } = o;
    const b = new SessionBinding(this, {
      ...init,
      hooks: this.hooks(),
      logger: this.slot.logger,
      ...(this.slot.cfg.maxPromptBytes !== undefined ? { maxPromptBytes: this.slot.cfg.maxPromptBytes } : {}),
      baseRules: this.baseRules,
      onClosed: (closed) => this.forget(closed),
    });
    b.spare = spare === true;
    this.slot.bindings.set(b.id, b);
    this.slot.cfg.onSession?.(b.session, this.slot.key);
    followSession(this.slot, b);
    return b;
  }

  /** Route the agent's frames, updates and requests for `b` to its Session (what waited for it first). */
  attach(b: SessionBinding, gen: Generation): void {
    b.gen = gen;
    gen.client.attach(b.session);
  }

  /** A session that never opened: gone without events. */
  discard(b: SessionBinding): void {
    if (b.gen?.alive) b.gen.client.detach(b.session);
    b.gen = null;
    this.slot.bindings.delete(b.id);
  }

  private forget(b: SessionBinding): void {
    b.pendingPrompt?.abort();
    this.discard(b);
  }

  /** The live process `b` is loaded into (loading it into a new one when needed). */
  bind(b: SessionBinding): Promise<Generation> {
    const gen = b.gen;
    if (gen && gen.alive && !gen.retiring) return Promise.resolve(gen);
    b.rebinding ??= this.rebind(b).finally(() => (b.rebinding = null));
    return b.rebinding;
  }

  private async rebind(b: SessionBinding): Promise<Generation> {
    const { slot } = this;
    const gen = await slot.ensure();
    if (!slot.quirks.sessionsSurviveRestart || !gen.client.capabilities.supportsLoad) {
      throw new TalariaError(
        'unsupported',
        `${slot.label} cannot load session ${b.id} into a new process; start a new session.`,
        { sessionId: b.id },
      );
    }
    const old = b.gen;
    if (old && old !== gen && old.alive) old.client.detach(b.session);
    slot.beginWork(gen, b.id);
    try {
      this.attach(b, gen);
      await this.load(b, gen, true);
      // A new process counts usage from zero.
      b.session.resetUsage();
      await this.restoreChoices(b, gen);
      if (b.lost) {
        // Said in the thread where it happened (before the message that restarted it): the turn's
        // error alone is replaced by the next turn's end, and a restarted agent may behave differently.
        const why = b.lost === 'crashed' ? 'its process stopped' : 'it stopped answering and was stopped';
        b.session.notice(
          'warning',
          'agent_restarted',
          `${slot.label} was restarted (${why}); this session was loaded into the new process.`,
          { reason: b.lost },
        );
        delete b.lost;
      }
      slot.emit('session.rebound', { key: slot.key, sessionId: b.id, generation: gen.n });
      return gen;
    } catch (e) {
      if (b.gen === gen) {
        gen.client.detach(b.session);
        b.gen = null;
      }
      throw e;
    } finally {
      slot.endWork(gen, b.id);
    }
  }

  /** session/load with the session's servers; `discard`: the thread already holds the history. */
  load(b: SessionBinding, gen: Generation, discard: boolean): Promise<unknown> {
    return loadInto(this, b, gen, discard);
  }

  setupParams(
    s: Pick<Session, 'cwd' | 'additionalDirectories'>,
    mcpServers: unknown[],
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> {
    const p: Record<string, unknown> = { ...extra, cwd: s.cwd, mcpServers };
    if (s.additionalDirectories.length) p.additionalDirectories = s.additionalDirectories;
    return p;
  }

  /** After a (re)load: the user's model if the agent lost it, then the mode (Hermes does not persist it). */
  restoreChoices(b: SessionBinding, gen: Generation): Promise<void> {
    return restoreChoices(this, b, gen);
  }

  // ---- the port -------------------------------------------------------------------------------

  promptCaps() {
    return this.slot.promptCaps();
  }

  steer(b: SessionBinding, text: string, o: { toolRunning: boolean }): Promise<SteerOutcome | null> {
    return agentSteer(this, b, text, o);
  }

  request(b: SessionBinding, method: string, params: unknown, opts?: ReqOpts): Promise<unknown> {
    const serial = this.slot.quirks.host.configBetweenTurns === true;
    if (method === 'session/prompt') {
      // Created now, so a cancel while it waits (behind a config change or the gate) reaches it.
      const ac = new AbortController();
      b.pendingPrompt = ac;
      return serial ? b.serial(() => this.prompt(b, params, ac)) : this.prompt(b, params, ac);
    }
    if (CONFIG_METHODS.has(method))
      return serial ? b.serial(() => this.config(b, method, params, opts)) : this.config(b, method, params, opts);
    return this.call(b, method, params, opts);
  }

  /** Rejects when the process is going (the session reports it; a cancel then ends the turn anyway). */
  notify(b: SessionBinding, method: string, params: unknown): Promise<void> {
    if (method === 'session/cancel') b.pendingPrompt?.abort();
    const gen = b.gen;
    if (!gen || !gen.alive || !gen.client.sessions.has(b.id)) return Promise.resolve();
    const sent = gen.client.connection.notify(method, params);
    const work = method === 'session/cancel' ? this.turns.get(b) : undefined;
    if (work && !work.cancelled) {
      // At once: an agent may wait for its tool to end before it answers the cancel.
      work.cancelled = true;
      work.first = reapTurn(this.slot, work);
    }
    return sent;
  }

  private async call(b: SessionBinding, method: string, params: unknown, opts?: ReqOpts): Promise<unknown> {
    const gen = await this.bind(b);
    return this.callOn(gen, method, params, opts, b.id);
  }

  /** `owner`: the session the request is for (null: none yet, e.g. session/new). */
  async callOn<T = unknown>(
    gen: Generation,
    method: string,
    params: unknown,
    opts?: ReqOpts,
    owner: string | null = null,
  ): Promise<T> {
    this.slot.beginWork(gen, owner);
    try {
      return await gen.client.connection.request<T>(method, params, opts);
    } catch (e) {
      throw this.mapError(gen, e);
    } finally {
      this.slot.endWork(gen, owner);
    }
  }

  private async config(b: SessionBinding, method: string, params: unknown, opts?: ReqOpts): Promise<unknown> {
    const gen = await this.bind(b);
    const res = await this.callOn(gen, method, params, opts, b.id);
    const p = (params ?? {}) as { modelId?: string; modeId?: string; configId?: string; value?: unknown };
    const catalog = b.session.catalog;
    const isModel =
      method === 'session/set_model' ||
      (method === 'session/set_config_option' && p.configId !== undefined && p.configId === catalog.model?.configId);
    if (isModel) {
      b.modelId = method === 'session/set_model' ? p.modelId : String(p.value);
      b.session.resetUsage();
      if (this.slot.quirks.host.reloadAfterSetModel && method === 'session/set_model') await this.load(b, gen, true);
    } else if (method === 'session/set_mode') b.modeId = p.modeId;
    else if (
      method === 'session/set_config_option' &&
      p.configId !== undefined &&
      p.configId === catalog.mode?.configId
    )
      b.modeId = String(p.value);
    return res;
  }

  private async prompt(b: SessionBinding, params: unknown, ac: AbortController): Promise<unknown> {
    const { slot } = this;
    try {
      if (ac.signal.aborted) return CANCELLED;
      await this.bindForTurn(b);
      let release: () => void;
      try {
        release = await slot.gate.acquire(ac.signal, (position) =>
          slot.emit('turn.waiting', { key: slot.key, sessionId: b.id, position, limit: slot.gate.limit }),
        );
      } catch {
        return CANCELLED;
      }
      try {
        // The process may have changed while this turn waited for a slot.
        const gen = await this.bindForTurn(b);
        if (ac.signal.aborted) return CANCELLED;
        if (b.seed && !isCommand((params as { prompt: ContentBlock[] }).prompt)) {
          params = await reseat(this, b, gen, b.seed, params as Parameters<typeof reseat>[4]);
          b.seed = null;
          if (ac.signal.aborted) return CANCELLED;
        }
        b.pendingPrompt = null;
        gen.running.add(b);
        slot.beginWork(gen, b.id);
        const work: TurnWork = { gen, owner: b.id, from: performance.now(), cancelled: false };
        this.turns.set(b, work);
        // Silence is measured from the turn's start, not from the process's last frame before it.
        gen.lastActivity = Math.max(gen.lastActivity, Date.now());
        slot.armWatchdog(gen);
        let res: unknown;
        try {
          res = await gen.client.connection.request('session/prompt', params);
          // The turn ends (and its tool cards say cancelled) only once its processes are gone.
          if (work.cancelled) await afterCancel(slot, b, work);
        } catch (e) {
          throw this.mapError(gen, e);
        } finally {
          if (this.turns.get(b) === work) this.turns.delete(b);
          gen.running.delete(b);
          slot.endWork(gen, b.id);
        }
        slot.crashes.healthy();
        return res;
      } finally {
        release();
      }
    } finally {
      if (b.pendingPrompt === ac) b.pendingPrompt = null;
    }
  }

  /** bind(), with start-up failures reported as such (the session itself did not fail). */
  private async bindForTurn(b: SessionBinding): Promise<Generation> {
    try {
      return await this.bind(b);
    } catch (e) {
      if (e instanceof TalariaError && e.code === 'connection_closed') {
        throw new TalariaError('spawn_failed', `${this.slot.label} could not be started: ${e.message}`, {
          ...(e.details ?? {}),
        });
      }
      throw e;
    }
  }

  mapError(gen: Generation, e: unknown): unknown {
    const auth = authRequired(e, { label: this.slot.label, authMethods: gen.client.capabilities.authMethods });
    if (auth) {
      noteAuthRequired(this.slot, auth, 'request');
      return auth;
    }
    if (gen.exitReason === 'stalled') {
      return new TalariaError(
        'timeout',
        `${this.slot.label} sent nothing for ${this.slot.cfg.stallMs} ms and ignored the cancel, so it was stopped; the session continues in a new process.`,
        { stalled: true },
      );
    }
    return e;
  }
}
