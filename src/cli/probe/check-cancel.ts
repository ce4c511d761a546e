/**
 * Cancel: a long prompt, `session/cancel` right after its first chunk. ACP: the prompt must
 * answer `cancelled`, streamed text stays, late updates are still accepted.
 */
import { plural, result, type ProbeContext } from './context.js';
import { brief, kindOf, ms, type Recorded } from './recorder.js';
import { runTurn } from './turn.js';
import type { CheckResult } from './types.js';

/**
 * An answer other than `cancelled` this soon after `session/cancel` may have been written before
 * the agent read it (a short turn's end crossing the cancel on the pipe): nothing to judge. An
 * agent that ignores the cancel goes on with the long answer the prompt asked for, well past this.
 */
export const CROSSING_MS = 100;

export async function checkCancel(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'cancel';
  const sid = ctx.session.id;
  const rec = ctx.recorder;
  let first: Recorded | undefined;
  let cancel: Recorded | undefined;
  const run = await runTurn(ctx, ctx.steering.slow, {
    during: async (ended, from) => {
      first = await rec.waitFor((r) => kindOf(r, sid) === 'agent_message_chunk', from, ctx.timeoutMs, ended);
      if (!first) return;
      const mark = rec.mark();
      void ctx.session.cancel();
      cancel = await rec.waitFor(
        (r) => r.dir === 'client->agent' && r.msg.method === 'session/cancel',
        mark,
        ctx.timeoutMs,
      );
    },
  });
  const turnId = run.result?.turnId;
  const kept = ctx.session.thread.entries
    .filter((e) => e.kind === 'assistant_message' && e.turnId === turnId)
    .reduce((n, e) => n + (e.kind === 'assistant_message' ? e.text.length : 0), 0);
  const chunks = run.updates.filter((r) => kindOf(r, sid) === 'agent_message_chunk');
  const afterCancel = cancel ? run.updates.filter((r) => r.i > cancel!.i).length : 0;
  const data = {
    firstChunkMs: first && run.request ? Math.round(first.at - run.request.at) : undefined,
    stopMs: cancel && run.response ? Math.round(run.response.at - cancel.at) : undefined,
    stopReason: run.stopReason,
    chunksBeforeCancel: cancel ? chunks.filter((r) => r.i < cancel!.i).length : chunks.length,
    updatesAfterCancel: afterCancel,
    textKeptChars: kept,
  };
  const evidence = [first, cancel, run.response].filter((r): r is Recorded => r !== undefined).map((r) => brief(r));
  if (!first) {
    if (run.timedOut)
      return result(
        'cancel',
        title,
        'broken',
        `no chunk within ${ctx.timeoutMs} ms of the long prompt`,
        evidence,
        data,
      );
    return result(
      'cancel',
      title,
      'not_testable',
      `the long prompt ended (${run.stopReason ?? 'no answer'}) before streaming anything`,
      evidence,
      data,
    );
  }
  if (!cancel)
    return result(
      'cancel',
      title,
      'broken',
      'session/cancel was never sent (the probe could not cancel)',
      evidence,
      data,
    );
  if (run.response && run.response.i < cancel.i) {
    return result(
      'cancel',
      title,
      'not_testable',
      `the turn ended (${run.stopReason ?? '?'}) before the cancel went out`,
      evidence,
      data,
    );
  }
  if (!run.response)
    return result(
      'cancel',
      title,
      'broken',
      `the prompt did not answer within ${ctx.timeoutMs} ms of session/cancel`,
      evidence,
      data,
    );
  if (run.stopReason !== 'cancelled' && data.stopMs !== undefined && data.stopMs <= CROSSING_MS)
    return result(
      'cancel',
      title,
      'not_testable',
      `the turn ended (${run.stopReason ?? '?'}) as the cancel went out (${ms(data.stopMs)} after it): its answer may have crossed the cancel`,
      evidence,
      data,
    );
  const tail = `stopped in ${ms(data.stopMs)}; ${plural(data.chunksBeforeCancel, 'chunk')} before the cancel, ${plural(afterCancel, 'update')} after; text kept: ${plural(kept, 'char')}`;
  if (run.stopReason !== 'cancelled')
    return result(
      'cancel',
      title,
      'broken',
      `answered ${run.stopReason ?? JSON.stringify(run.response.msg.error ?? null)} after session/cancel (ACP: cancelled); ${tail}`,
      evidence,
      data,
    );
  if (kept === 0)
    return result('cancel', title, 'broken', `stop reason cancelled but no text was kept; ${tail}`, evidence, data);
  return result('cancel', title, 'works', `stop reason cancelled; ${tail}`, evidence, data);
}
