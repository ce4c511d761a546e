/**
 * DELEGATE (the research fake model's keyword → `delegate_task`), as a built Hermes 0.18.2 puts
 * it on the wire (evidence 20-delegate): a plain `tool_call` (kind execute, title "delegate:
 * <goal, 57 chars>...", content "Delegating task:\n<goal>", no status, no rawInput) and at once
 * its `tool_call_update` completed with the JSON "dispatched" body — top-level delegations
 * always run in the background. The child's own work never reaches ACP (the adapter's progress
 * callback drops every subagent event) and its result is never delivered over ACP either, so
 * nothing more is sent for it, ever.
 */
import { randomBytes } from 'node:crypto';
import { append } from './history.js';
import { pyDumps } from './pyjson.js';
import { liveToolId } from './tools.js';
import type { Turn } from './turn.js';

const NOTE =
  'Subagent is running in the background. You and the user can keep working; its full result re-enters the conversation as a new message when it finishes. Do not wait or poll — just continue.';

const text = (t: string) => ({ content: { text: t, type: 'text' }, type: 'content' });

/** acp_adapter/tools.py: goals over 60 characters are cut to 57 + "...". */
export const delegateTitle = (goal: string): string =>
  goal ? `delegate: ${goal.length > 60 ? `${goal.slice(0, 57)}...` : goal}` : 'delegate task';

/** The goal the research fake model always gives the child. */
const goalOf = (t: Turn): string => `CHILDTASK: read notes.txt in ${t.cwd} and report its first line`;

export async function delegate(t: Turn): Promise<void> {
  if (t.rt.cancelled) return;
  t.rt.promptBuilt = true;
  t.calls++;
  const goal = goalOf(t);
  const id = liveToolId();
  const pid = `call_delegate_${++t.rt.rec.toolSeq}`;
  t.send({
    content: [text(`Delegating task:\n${goal}`)],
    kind: 'execute',
    locations: [],
    title: delegateTitle(goal),
    toolCallId: id,
    sessionUpdate: 'tool_call',
  });
  // delegate_tool.py dumps with ensure_ascii=False: the note's dash stays a dash.
  const raw = pyDumps({
    status: 'dispatched',
    mode: 'background',
    count: 1,
    delegation_id: `deleg_${randomBytes(4).toString('hex')}`,
    goals: [goal],
    note: NOTE,
  }).replace(/\\u([0-9a-f]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  t.send({
    content: [text(raw)],
    kind: 'execute',
    status: 'completed',
    toolCallId: id,
    sessionUpdate: 'tool_call_update',
  });
  append(
    t.rt,
    { role: 'assistant', content: '', tool_calls: [{ id: pid, name: 'delegate_task', args: { goal } }] },
    { role: 'tool', tool_call_id: pid, tool_name: 'delegate_task', content: raw },
  );
  t.lastRaw = raw;
  t.afterTool = true;
  await t.say('Delegation launched.');
}
