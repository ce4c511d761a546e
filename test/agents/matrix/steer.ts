/**
 * The steer cell (issue 14), for agents that advertise `_session/steering` (claude-agent-acp's
 * current line): while a slow answer streams, "steer now" must go into the running turn through
 * the agent's own method, and the model must get the correction within that turn. Checked against
 * the fake model's requests and the turn's text, not the agent's say-so.
 */
import type { SteerResult } from '../../../src/session/steer.js';
import type { Entry } from '../../../src/thread/types.js';
import { runTurn, type Check, type ScenarioCtx } from './scenarios.js';

const STEER = 'Please reply to this matrix steer probe.';

function streaming(ctx: ScenarioCtx, turnId: string): Promise<void> {
  const has = () =>
    ctx.session.thread.entries.some(
      (e: Entry) => e.turnId === turnId && e.kind === 'assistant_message' && e.text.includes('chunk 2/'),
    );
  if (has()) return Promise.resolve();
  return new Promise((resolve) => {
    const off = ctx.session.subscribe(() => {
      if (!has()) return;
      off();
      resolve();
    });
  });
}

export async function steerScenario(ctx: ScenarioCtx): Promise<Check> {
  const from = ctx.model.requests.length;
  let steered: SteerResult | undefined;
  let failed: unknown;
  const r = await runTurn(ctx, 'Stream this slowly: [[slow: 60]]', async (turnId) => {
    await streaming(ctx, turnId);
    steered = await ctx.session.steer(STEER).catch((e: unknown) => ((failed = e), undefined));
  });
  if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
  if (failed) return { ok: false, detail: `steer failed: ${String(failed).slice(0, 200)}` };
  if (!steered) return { ok: false, detail: 'the turn ended before it could be steered' };
  const via = steered.how === 'agent' ? steered.via : steered.how;
  const sent = ctx.model.requests.slice(from).some((q) => JSON.stringify(q.body ?? '').includes('matrix steer probe'));
  const answered = r.text.includes('matrix steer probe');
  const sameTurn = steered.how === 'agent';
  const ok = sameTurn && via === '_session/steering' && sent && answered && !r.result.error;
  return {
    ok,
    detail: `${via}; model got it: ${sent}; answered in the steered turn: ${answered}; ${r.result.stopReason}${r.result.error ? ` ${r.result.error.code}` : ''}`,
  };
}
