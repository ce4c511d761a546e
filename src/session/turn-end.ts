/**
 * How a turn ended, in the thread and as a result: cancelled, denied, failed or completed (the
 * provider's classifyTurn may call a completed turn a failure), with its usage. The turn queue
 * (turns.ts) then tells it and moves on.
 */
import type { SessionCore } from './core.js';
import { deniedIn, turnText } from './turn-entries.js';
import type { Turn, TurnError, TurnResult } from './turn.js';
import type { UsageTracker } from './usage.js';

export type PromptResponse = { stopReason?: string; usage?: unknown };

/** Ends `turn` in the thread (its open permission questions cancelled) and builds its result. */
export function settleTurn(
  s: SessionCore,
  turn: Turn,
  response: PromptResponse | undefined,
  error: TurnError | undefined,
  usage: UsageTracker,
): { result: TurnResult; cancelled: boolean } {
  const agentStopReason = typeof response?.stopReason === 'string' ? response.stopReason : undefined;
  // Cancelled means we (the user, Talaria) cancelled. An agent that ends the turn `cancelled`
  // unasked after a permission was refused (codex's reject option) was denied, not cancelled.
  const denied = !turn.cancelRequested && agentStopReason === 'cancelled' && deniedIn(s.thread, turn);
  const cancelled = turn.cancelRequested || agentStopReason === 'cancelled';
  const outcome = error ? 'failed' : cancelled ? 'cancelled' : 'completed';
  // Nobody can answer a question about a turn that is over (the agent gave up on it).
  s.broker.cancelTurn(turn.id);
  s.apply({ type: 'turn.ended', turnId: turn.id, outcome });

  if (!error && !cancelled && s.hooks.classifyTurn) {
    const toolCalls = s.thread.entries.slice(turn.firstEntry).filter((e) => e.kind === 'tool_call').length;
    const c = s.hooks.classifyTurn({
      turnId: turn.id,
      stopReason: agentStopReason ?? '',
      text: turnText(s.thread, turn),
      cancelled,
      toolCalls,
    });
    if (c) {
      error = c;
      s.notice('error', c.code, c.message, c.data);
    }
  }
  const used = response ? usage.turn(response.usage) : undefined;
  const result: TurnResult = {
    turnId: turn.id,
    stopReason: error
      ? 'error'
      : denied
        ? 'permission_denied'
        : cancelled
          ? 'cancelled'
          : (agentStopReason ?? 'end_turn'),
    durationMs: s.now() - turn.startedAt,
  };
  if (agentStopReason !== undefined) result.agentStopReason = agentStopReason;
  if (used) result.usage = used;
  if (error) result.error = error;
  if (response !== undefined) result.response = response;
  return { result, cancelled };
}
