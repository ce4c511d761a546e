/** Tool calls as the raw frames tell them: ids, titles, status transitions, completion. */
import { updateOf, type Recorded } from './recorder.js';
import { strings } from './turn.js';

export interface ToolTrace {
  id: string;
  title?: string;
  kind?: string;
  /** Statuses in arrival order ('(none)' for a frame without one). */
  statuses: string[];
  /** A `tool_call` frame announced it (else only updates were seen). */
  announced: boolean;
  /** Its last status is completed or failed. */
  closed: boolean;
  /** Every string in its frames (titles, rawInput, content, rawOutput). */
  text: string[];
  frames: number;
}

const TERMINAL = new Set(['completed', 'failed']);

export function traceToolCalls(updates: Recorded[], sessionId: string): { calls: ToolTrace[]; missingIds: number } {
  const byId = new Map<string, ToolTrace>();
  let missingIds = 0;
  for (const r of updates) {
    const u = updateOf(r, sessionId);
    if (!u || (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update')) continue;
    if (typeof u.toolCallId !== 'string' || u.toolCallId === '') {
      missingIds++;
      continue;
    }
    let t = byId.get(u.toolCallId);
    if (!t)
      byId.set(
        u.toolCallId,
        (t = { id: u.toolCallId, statuses: [], announced: false, closed: false, text: [], frames: 0 }),
      );
    t.frames++;
    if (u.sessionUpdate === 'tool_call') t.announced = true;
    if (typeof u.title === 'string' && (t.title === undefined || u.sessionUpdate === 'tool_call')) t.title = u.title;
    if (typeof u.kind === 'string') t.kind = u.kind;
    const status = typeof u.status === 'string' ? u.status : undefined;
    if (status !== undefined) {
      if (t.statuses[t.statuses.length - 1] !== status) t.statuses.push(status);
      t.closed = TERMINAL.has(status);
    } else if (u.sessionUpdate === 'tool_call') t.statuses.push('(none)');
    strings(u, t.text);
  }
  return { calls: [...byId.values()], missingIds };
}

export function describeCall(t: ToolTrace): string {
  const flow = t.statuses.length ? t.statuses.join(' → ') : '(no status)';
  const end = t.closed ? '' : ' → never completed';
  return `${t.id} "${(t.title ?? '').slice(0, 60)}"${t.kind ? ` [${t.kind}]` : ''}${t.announced ? '' : ' (no tool_call, updates only)'}: ${flow}${end}`;
}
