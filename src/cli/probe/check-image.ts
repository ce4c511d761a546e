/** An image prompt, sent only when promptCapabilities.image is advertised: did the agent take it? */
import type { ContentBlock } from '../../thread/types.js';
import { result, short, type ProbeContext } from './context.js';
import { brief } from './recorder.js';
import { runTurn, turnProblem } from './turn.js';
import type { CheckResult } from './types.js';

/** A 1×1 red PNG. */
export const PROBE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

export async function checkImage(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'image prompt';
  if (!ctx.client.capabilities.promptImage)
    return result('image', title, 'unsupported', 'promptCapabilities.image not advertised: no image sent');
  if (ctx.busy) return result('image', title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const blocks: ContentBlock[] = [
    { type: 'text', text: ctx.steering.image },
    { type: 'image', mimeType: 'image/png', data: PROBE_PNG },
  ];
  const run = await runTurn(ctx, blocks);
  const evidence = [
    ...(run.request ? [brief(run.request, 200)] : []),
    ...(run.response ? [brief(run.response)] : []),
    `reply: ${short(run.text, 200)}`,
  ];
  const data = { stopReason: run.stopReason, reply: run.text.slice(0, 300) };
  const sent = (run.request?.msg.params as { prompt?: { type?: unknown }[] } | undefined)?.prompt ?? [];
  if (run.request && !sent.some((b) => b.type === 'image'))
    return result(
      'image',
      title,
      'skipped',
      'Talaria withheld the image (the provider hooks say this agent cannot take it)',
      evidence,
      data,
    );
  const problem = turnProblem(run, ctx.timeoutMs);
  if (problem) return result('image', title, 'broken', `image rejected: ${problem}`, evidence, data);
  if (run.stopReason !== 'end_turn')
    return result('image', title, 'broken', `stop reason ${String(run.stopReason)}`, evidence, data);
  return result('image', title, 'works', `accepted (stop end_turn); reply: "${short(run.text, 70)}"`, evidence, data);
}
