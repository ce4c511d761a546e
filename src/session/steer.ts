/**
 * Steering a running turn ("steer now", as opposed to queueing the message for after it). ACP
 * has no steer, so the agent's own way is used where it has one (the host decides: claude-agent-acp's
 * `_session/steering`; Hermes' `/steer`, which 0.18.2 only honours while a tool runs — said during
 * plain text it is answered "queued" and lost). Otherwise the turn is cancelled and the message is
 * sent with the interrupted ask and the partial answer in front, as context. The thread says
 * which happened (a `steered` notice), and the user's words stay the user message.
 */
import type { SessionCore, SteerOutcome } from './core.js';
import { injectedNotice, steerContext } from '../thread/injected.js';
import type { Turn } from './turn.js';

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

/** What steering needs of the session besides its core. */
export interface Steerable extends SessionCore {
  readonly running: Turn | null;
  prompt(input: string, o?: { context?: string }): Turn;
  cancel(): Promise<unknown>;
  notice(level: 'info' | 'warning' | 'error', code: string, text: string, data?: unknown): void;
}

const quote = (t: string) => (t.length > 80 ? `${t.slice(0, 79)}…` : t);

function textOf(turn: Turn): string {
  return turn.prompt
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

export async function steer(s: Steerable, text: string): Promise<SteerResult> {
  const running = s.running;
  if (!running) return { how: 'prompt', turn: s.prompt(text) };
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
  if (outcome && outcome.outcome !== 'promptRequired' && s.running === running) {
    s.notice(
      'info',
      'steered',
      `Steered the running turn (${outcome.via}): ${quote(text)}`,
      injectedNotice({ how: 'agent', via: outcome.via, text, outcome: outcome.outcome }),
    );
    return { how: 'agent', via: outcome.via };
  }
  if (s.running !== running || outcome?.outcome === 'promptRequired') {
    // The turn ended meanwhile: the message is a normal one.
    return { how: 'prompt', turn: s.prompt(text) };
  }
  const ask = textOf(running);
  await s.cancel();
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
  return { how: 'resent', turn: s.prompt(text, { context }) };
}
