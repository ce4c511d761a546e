import type { ContentBlock } from '../thread/types.js';
import type { TurnUsage } from './usage.js';
import type { SessionEvent } from './events.js';

export interface TurnError {
  /** 'agent_error' (JSON-RPC error), 'agent_crashed', 'connection_closed', 'context_overflow', 'auth_error', … */
  code: string;
  message: string;
  data?: unknown;
}

export interface TurnResult {
  turnId: string;
  /**
   * The agent's stop reason, or 'error' when the turn failed (then `error` says why).
   * 'cancelled' only when the turn was cancelled from our side; 'permission_denied' when the agent
   * answered `cancelled` unasked after a permission of the turn was refused.
   */
  stopReason: string;
  /** What the agent itself answered, when it answered (kept even when `stopReason` is 'error'). */
  agentStopReason?: string;
  usage?: TurnUsage;
  error?: TurnError;
  durationMs: number;
  /** True when the turn never ran: it was queued and then removed, or the queue was dropped by a cancel. */
  dropped?: boolean;
  /** A queued prompt steered into the running turn (the agent's own steering): that turn, which answered it. */
  steeredInto?: string;
  /** The raw prompt response, extra fields included (agents add usage, _meta.quota, …). */
  response?: unknown;
}

/** A prompt: queued while another turn runs, then run; its result always resolves (never rejects). */
export class Turn {
  status: 'queued' | 'running' | 'done' = 'queued';
  readonly result: Promise<TurnResult>;
  private settle!: (r: TurnResult) => void;
  startedAt = 0;
  /** Index in thread.entries where this turn's entries begin (for summaries). */
  firstEntry = 0;
  cancelRequested = false;
  /**
   * Text the agent gets in front of the prompt that the thread does not show as the user's words
   * (a steer's resend: the interrupted ask and the partial answer). Set before the turn runs.
   */
  context?: string;

  constructor(
    readonly id: string,
    /** Replaced (never changed in place) when its text is edited while it is queued. */
    public prompt: ContentBlock[],
    private readonly iterate: (
      until: Promise<unknown>,
      filter: (e: SessionEvent) => boolean,
    ) => AsyncIterableIterator<SessionEvent>,
  ) {
    this.result = new Promise((r) => (this.settle = r));
  }

  /** Events of this turn (entries it produced, permissions, its end) from the first read on, until it ends. */
  events(): AsyncIterableIterator<SessionEvent> {
    return this.iterate(this.result, () => true);
  }

  /** @internal */
  resolve(r: TurnResult): void {
    this.status = 'done';
    this.settle(r);
  }
}
