/** A streamed turn: time to the first frame, how many chunks, their cadence, messageId. */
import { plural, result, type ProbeContext } from './context.js';
import { brief, kindOf, median, ms, updateOf } from './recorder.js';
import { runTurn, turnProblem } from './turn.js';
import type { CheckResult } from './types.js';

const CONTENT = new Set(['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);

export async function checkStream(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'streamed turn';
  const run = await runTurn(ctx, ctx.steering.stream);
  const sid = ctx.session.id;
  const sentAt = run.request?.at ?? 0;
  const chunks = run.updates.filter((r) => kindOf(r, sid) === 'agent_message_chunk');
  const thoughts = run.updates.filter((r) => kindOf(r, sid) === 'agent_thought_chunk');
  const gaps = chunks.slice(1).map((r, i) => r.at - chunks[i]!.at);
  const withId = chunks.filter((r) => typeof updateOf(r, sid)?.messageId === 'string').length;
  // Setup leftovers (commands, usage from session/new) may land after the prompt went out: not an answer.
  const content = run.updates.filter((r) => CONTENT.has(kindOf(r, sid) ?? ''));
  const data = {
    firstFrameMs: content[0] ? Math.round(content[0].at - sentAt) : undefined,
    firstChunkMs: chunks[0] ? Math.round(chunks[0].at - sentAt) : undefined,
    chunks: chunks.length,
    thoughtChunks: thoughts.length,
    medianGapMs: median(gaps),
    messageId: withId === 0 ? 'none' : withId === chunks.length ? 'all' : 'some',
    totalMs: run.response ? Math.round(run.response.at - sentAt) : undefined,
    stopReason: run.stopReason,
    text: run.text.slice(0, 200),
  };
  const evidence = [...content.slice(0, 3), ...(run.response ? [run.response] : [])].map((r) => brief(r));
  const problem = turnProblem(run, ctx.timeoutMs);
  if (problem) return result('stream', title, 'broken', problem, evidence, data);
  const summary = [
    `first frame ${ms(data.firstFrameMs)}`,
    plural(chunks.length, 'chunk'),
    ...(thoughts.length ? [plural(thoughts.length, 'thought chunk')] : []),
    `median gap ${ms(data.medianGapMs)}`,
    `messageId: ${data.messageId}`,
    `stop ${run.stopReason}`,
  ].join('; ');
  if (chunks.length === 0)
    return result('stream', title, 'broken', `no agent_message_chunk at all; ${summary}`, evidence, data);
  if (chunks.length === 1)
    return result(
      'stream',
      title,
      'supported',
      `one chunk only: the answer was not streamed; ${summary}`,
      evidence,
      data,
    );
  if (run.stopReason !== 'end_turn')
    return result(
      'stream',
      title,
      'broken',
      `stop reason ${String(run.stopReason)} (expected end_turn); ${summary}`,
      evidence,
      data,
    );
  return result('stream', title, 'works', summary, evidence, data);
}
