/**
 * Cancel settlement: after a cancel, the agent's word on a killed tool varies (opencode/kilo:
 * completed, codex: failed, claude/codex: nothing). For a call that was open at the cancel, or
 * started after it, a terminal status from the agent is dropped (its output is kept), so the
 * cancelled turn's end settles it `cancelled` by cancel, like every other call of that turn.
 */
import { hasToolCall, openToolCalls } from '../thread/index.js';
import type { Thread } from '../thread/types.js';
import type { Update } from './router.js';

export class CancelSettlement {
  /** Tool calls open when the running (or last) turn was cancelled. */
  private readonly calls = new Set<string>();

  constructor(private readonly thread: Thread) {}

  /** A new turn starts: nothing of it is cancelled yet. */
  turnStarted(): void {
    this.calls.clear();
  }

  /** The turn `turnId` is being cancelled: its open calls end cancelled, whatever the agent says. */
  cancelled(turnId: string): void {
    for (const e of openToolCalls(this.thread)) if (e.turnId === turnId) this.calls.add(e.toolCallId);
  }

  /** A tool call update on its way to the reducer; `cancelling`: the running turn was cancelled. */
  filter(update: Update, cancelling: boolean): Update {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') return update;
    const id = typeof update.toolCallId === 'string' ? update.toolCallId : '';
    if (!id) return update;
    if (cancelling && !hasToolCall(this.thread, id)) this.calls.add(id);
    if (this.calls.has(id) && (update.status === 'completed' || update.status === 'failed')) {
      const { status: _dropped, ...rest } = update;
      return rest as Update;
    }
    return update;
  }
}
