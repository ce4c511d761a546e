/**
 * Steering a running turn ("steer now", as opposed to queueing the message for after it). ACP
 * has no steer, so the agent's own way is used where it has one (the host decides: claude-agent-acp's
 * `_session/steering`; Hermes' `/steer`, which 0.18.2 only honours while a tool runs — said during
 * plain text it is answered "queued" and lost). Otherwise the turn is cancelled and the message is
 * sent with the interrupted ask and the partial answer in front, as context. The thread says
 * which happened (a `steered` notice), and the user's words stay the user message.
 *
 * A steer is a session operation on the session's one queue: while it is being placed the queue
 * waits (its message goes before what was queued, and a cancel-and-resend keeps what waits), and
 * a queued prompt steered ("steer now" on it) leaves the queue and is steered in one step — it
 * cannot also start from the queue — and goes back where it was if the steer fails.
 */
import type { SessionCore, SteerOutcome } from './core.js';
import { injectedNotice, steerContext } from '../thread/injected.js';
import type { Turn } from './turn.js';
import { steerableText, type PromptQueue, type Waiting } from './prompt-queue.js';
import { describeError } from './errors.js';
import type { TurnError } from './turn.js';

export type SteerHow =
  /** Nothing was running: sent as a normal message. */
  | 'prompt'
  /** The agent took it into the running turn (its own steering). */
  | 'agent'
  /** The running turn was cancelled and the message resent with what it had said so far. */
  | 'resent';

export interface SteerResult {
  how: SteerHow;
  /** The turn that answers it ('prompt', 'resent'; 'agent' when the agent started a new turn for it, none). */
  turn?: Turn;
  /** The agent's way ('_session/steering', '/steer'), for 'agent'. */
  via?: string;
}

/** What steering needs of the session besides its core (turns.ts's TurnQueue is the turns side). */
export interface Steerable extends SessionCore {
  notice(level: 'info' | 'warning' | 'error', code: string, text: string, data?: unknown): void;
}

export interface SteerTurns {
  readonly running: Turn | null;
  readonly waiting: PromptQueue;
  /** The steer's message ahead of what waits (`carry`: a queued prompt, which goes as itself). */
  sendFirst(text: string, o?: { context?: string; carry?: Waiting }): Turn;
  /** Ends what waits unsent (a closed or failed session). */
  dropQueue(error?: TurnError): void;
  /** Cancels the running turn; what waits goes on waiting. */
  cancel(o: { keepQueue: true }): Promise<unknown>;
  /** Runs the steer with the queue held (what waits starts after it). */
  holding<T>(fn: () => Promise<T>): Promise<T>;
  /** A queued prompt the agent took into `into`: it ends with it. */
  absorbed(turn: Turn, into: Turn): void;
}

const quote = (t: string) => (t.length > 80 ? `${t.slice(0, 79)}…` : t);

function textOf(turn: Turn): string {
  return turn.prompt
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

export function steer(s: Steerable, turns: SteerTurns, text: string): Promise<SteerResult> {
  return turns.holding(() => place(s, turns, text));
}

/**
 * "Steer now" on queued prompt `id`. Nothing running: it simply goes first. Otherwise it is off
 * the queue while the steer is placed (an edit, a removal or a second steer of it finds nothing),
 * and the `queue.updated` that drops it names the turn that carries it (the resent one, or the
 * running one the agent took it into). A failed steer puts it back where it was.
 */
export function steerQueued(s: Steerable, turns: SteerTurns, id: string): Promise<SteerResult> {
  return turns.holding(async () => {
    const { w, at } = turns.waiting.take(id);
    let text: string;
    try {
      text = steerableText(w);
    } catch (err) {
      turns.waiting.putBack(w, at);
      throw err;
    }
    const running = turns.running;
    if (!running) {
      turns.waiting.moveToFront(w);
      return { how: 'prompt' as const, turn: w.turn };
    }
    let r: SteerResult;
    try {
      r = await place(s, turns, text, w);
    } catch (err) {
      turns.waiting.putBack(w, at);
      // A session that closed or failed meanwhile runs nothing more: what waits ends, as on a cancel.
      if (s.state === 'closed') turns.dropQueue({ code: 'session_closed', message: 'session closed' });
      else if (s.state === 'failed') turns.dropQueue(describeError(err));
      throw err;
    }
    if (!r.turn) turns.absorbed(w.turn, running);
    // Unless another steer's turn runs and it waits again (sendFirst said so), it left the queue.
    if (turns.waiting.of(w.turn.id) === undefined)
      turns.waiting.changed({ id: w.id, turnId: r.turn?.id ?? running.id });
    return r;
  });
}

/** The steer itself (the queue held); `carry`: the queued prompt, whose Turn answers it when a turn does. */
async function place(s: Steerable, turns: SteerTurns, text: string, carry?: Waiting): Promise<SteerResult> {
  const send = (o: { context?: string } = {}) => turns.sendFirst(text, { ...o, ...(carry ? { carry } : {}) });
  const running = turns.running;
  if (!running) return { how: 'prompt', turn: send() };
  const toolRunning = s.thread.entries.some(
    (e) => e.kind === 'tool_call' && e.turnId === running.id && (e.status === 'in_progress' || e.status === 'pending'),
  );
  let outcome: SteerOutcome | null = null;
  try {
    outcome = (await s.port.steer?.(text, { toolRunning })) ?? null;
  } catch (err) {
    // The agent's own way failed: the generic way still works.
    s.logger.warn('steering through the agent failed; cancelling and resending', {
      sessionId: s.id,
      error: String(err),
    });
  }
  if (outcome && outcome.outcome !== 'promptRequired' && turns.running === running) {
    s.notice(
      'info',
      'steered',
      `Steered the running turn (${outcome.via}): ${quote(text)}`,
      injectedNotice({ how: 'agent', via: outcome.via, text, outcome: outcome.outcome }),
    );
    return { how: 'agent', via: outcome.via };
  }
  if (turns.running !== running || outcome?.outcome === 'promptRequired') {
    // The turn ended meanwhile: the message is a normal one (still before what was queued).
    return { how: 'prompt', turn: send() };
  }
  const ask = textOf(running);
  await turns.cancel({ keepQueue: true });
  const partial = s.thread.entries
    .filter((e) => e.kind === 'assistant_message' && e.turnId === running.id)
    .map((e) => (e as { text: string }).text.trim())
    .filter(Boolean)
    .join('\n\n');
  const context = steerContext(ask, partial);
  s.notice(
    'info',
    'steered',
    `Interrupted the running turn and resent it with your correction: ${quote(text)}`,
    injectedNotice({ how: 'resent', text }),
  );
  return { how: 'resent', turn: send({ context }) };
}
