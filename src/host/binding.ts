/**
 * Re-binding, the host's answer to "Session objects the user holds must keep working": the
 * host builds each Session itself with a port and a permission broker that point at whatever
 * process currently serves it. When that process crashes, is reaped, restarted for new env or
 * replaced after an overflow, the SAME Session object is loaded into the next process (its
 * thread kept; the agent's replay read and discarded) on its next use. So callers never swap
 * objects, events keep their sequence, and the thread keeps what the user saw.
 */
import { PermissionBroker } from '../permission/broker.js';
import type { AnswerResult, PendingPermission, PermissionRequest } from '../permission/broker-types.js';
import type { PermissionAnswer, PermissionMode, PermissionOutcome, PermissionRule } from '../permission/types.js';
import type { Logger } from '../protocol/types.js';
import type { SessionHooks } from '../session/hooks.js';
import type { SteerOutcome } from '../session/core.js';
import { Session, type SessionPort } from '../session/session.js';
import type { SeedReason } from '../thread/seed.js';
import type { Generation } from './generation.js';

/** What the next prompt of a binding is to be seeded with (reseed.ts does it). */
export interface SeedPlan {
  reason: SeedReason;
  /** The agent the conversation came from (continue elsewhere). */
  from?: string;
  /**
   * The session is already a fresh one holding no context (a branch the harness just opened for a
   * rewind or another agent): only the seed goes in front of its first prompt.
   */
  inPlace?: boolean;
}

/** Forwards to the broker of the process the session is bound to (request ids restart per process). */
class BrokerRelay extends PermissionBroker {
  constructor(private readonly target: () => PermissionBroker | undefined) {
    super({ getPolicy: () => ({ mode: 'ask', rules: [] }), onDecision: () => {} });
  }
  override request(req: PermissionRequest): Promise<PermissionOutcome> {
    const t = this.target();
    return t ? t.request(req) : Promise.resolve({ outcome: 'cancelled' });
  }
  override answer(requestKey: string, answer: PermissionAnswer, answeredBy?: string): AnswerResult {
    return this.target()?.answer(requestKey, answer, answeredBy) ?? { ok: false, reason: 'unknown' };
  }
  override cancelSession(sessionId: string): number {
    return this.target()?.cancelSession(sessionId) ?? 0;
  }
  override cancelTurn(turnId: string): number {
    return this.target()?.cancelTurn(turnId) ?? 0;
  }
  override closeAll(): number {
    return this.target()?.closeAll() ?? 0;
  }
  override pending(sessionId?: string): PendingPermission[] {
    return this.target()?.pending(sessionId) ?? [];
  }
}

/** What a binding needs from its slot. */
export interface BindingOwner {
  request(
    b: SessionBinding,
    method: string,
    params: unknown,
    opts?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<unknown>;
  notify(b: SessionBinding, method: string, params: unknown): Promise<void>;
  promptCaps(): { image: boolean; audio: boolean; embeddedContext: boolean };
  steer(b: SessionBinding, text: string, o: { toolRunning: boolean }): Promise<SteerOutcome | null>;
}

export interface BindingInit {
  id: string;
  cwd: string;
  additionalDirectories?: string[];
  /** The servers as sent (after filtering); re-sent on every load. */
  mcpServers: unknown[];
  permissionMode: PermissionMode;
  hooks: SessionHooks;
  logger: Logger;
  baseRules: () => PermissionRule[];
  onClosed: (b: SessionBinding) => void;
  maxPromptBytes?: number;
}

export class SessionBinding {
  readonly session: Session;
  /** The process serving it now (null: none yet, or the last one is gone). */
  gen: Generation | null = null;
  /** Set while the session is being loaded into a new process. */
  rebinding: Promise<Generation> | null = null;
  /** Its process died under it (crashed, or killed for a stall): the next load says so in the thread. */
  lost?: 'crashed' | 'stalled';
  /** The agent mode the user chose with setMode (re-applied after a restart). */
  modeId?: string;
  /** The model the user chose with setModel (re-applied after a restart if the agent lost it). */
  modelId?: string;
  /** The next prompt goes to a fresh agent session seeded with the conversation (after an overflow). */
  seed: SeedPlan | null = null;
  /** The running turn's `session/prompt`, waiting to be sent (behind other ops or the concurrency gate); cancel aborts it. */
  pendingPrompt: AbortController | null = null;
  /** Kept ready by the warm pool and not handed out yet: listed nowhere (host.claimSpare hands it out). */
  spare = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly owner: BindingOwner,
    init: BindingInit,
  ) {
    const port: SessionPort = {
      request: <T>(method: string, params: unknown, opts?: { signal?: AbortSignal; timeoutMs?: number }) =>
        owner.request(this, method, params, opts) as Promise<T>,
      notify: (method, params) => owner.notify(this, method, params),
      get promptCaps() {
        return owner.promptCaps();
      },
      steer: (text, o) => owner.steer(this, text, o),
      terminal: (sid, tid) => this.gen?.client.terminalView(sid, tid),
    };
    this.session = new Session({
      id: init.id,
      cwd: init.cwd,
      additionalDirectories: init.additionalDirectories ?? [],
      mcpServers: init.mcpServers,
      port,
      broker: new BrokerRelay(() => this.gen?.client.broker),
      hooks: init.hooks,
      logger: init.logger,
      permissionMode: init.permissionMode,
      baseRules: init.baseRules,
      ...(init.maxPromptBytes !== undefined ? { maxPromptBytes: init.maxPromptBytes } : {}),
      onClosed: () => init.onClosed(this),
    });
  }

  get id(): string {
    return this.session.id;
  }

  /**
   * Runs `fn` after every op queued before it, in call order: it orders wire operations (a running
   * turn's `session/prompt`, config changes), not prompts — those wait in the session's queue.
   */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
