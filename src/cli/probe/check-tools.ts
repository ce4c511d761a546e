/**
 * A tool-using turn: tool calls announced with ids, their status transitions, whether the agent
 * completed them or left them dangling (Talaria then settles them at turn end); and the
 * permission requests of that turn — does their toolCallId name an announced call?
 */
import { plural, result, type ProbeContext } from './context.js';
import { brief, isRequest, isResponseTo, updateOf } from './recorder.js';
import { describeCall, traceToolCalls } from './tool-calls.js';
import { runTurn, turnProblem, type TurnRun } from './turn.js';
import type { CheckResult } from './types.js';

export async function checkTools(ctx: ProbeContext): Promise<CheckResult[]> {
  const run = await runTurn(ctx, ctx.steering.tool);
  return [toolsRow(ctx, run), permissionsRow(ctx, run)];
}

function toolsRow(ctx: ProbeContext, run: TurnRun): CheckResult {
  const title = 'tool calls';
  const sid = ctx.session.id;
  const { calls, missingIds } = traceToolCalls(run.updates, sid);
  const turnId = run.result?.turnId;
  const ids = new Set(calls.map((c) => c.id));
  const settled = ctx.session.thread.entries.filter(
    (e) => e.kind === 'tool_call' && e.turnId === turnId && ids.has(e.toolCallId) && e.settledBy === 'turn_end',
  ).length;
  const dangling = calls.filter((c) => !c.closed);
  const data = {
    calls: calls.map((c) => ({
      id: c.id,
      title: c.title,
      kind: c.kind,
      statuses: c.statuses,
      completed: c.closed,
      announced: c.announced,
    })),
    dangling: dangling.map((c) => c.id),
    settledByTalaria: settled,
    missingIds,
    stopReason: run.stopReason,
  };
  const evidence = calls.map(describeCall);
  if (settled)
    evidence.push(`Talaria settled ${plural(settled, 'call')} when the prompt answered ${run.stopReason ?? '?'}`);
  const problem = turnProblem(run, ctx.timeoutMs);
  if (problem) return result('tools', title, 'broken', problem, evidence, data);
  if (missingIds)
    return result(
      'tools',
      title,
      'broken',
      `${plural(missingIds, 'tool update')} without a toolCallId`,
      evidence,
      data,
    );
  if (calls.length === 0)
    return result(
      'tools',
      title,
      'not_testable',
      `the prompt made no tool call (stop ${run.stopReason ?? '?'})`,
      evidence,
      data,
    );
  const unannounced = calls.filter((c) => !c.announced);
  const summary = `${plural(calls.length, 'call')} (${calls.map((c) => c.kind ?? '?').join(', ')}); ${calls.length - dangling.length} completed by the agent`;
  if (dangling.length) {
    return result(
      'tools',
      title,
      'quirk',
      `${summary}; ${dangling.length} left dangling, settled by Talaria at turn end`,
      evidence,
      data,
    );
  }
  if (unannounced.length)
    return result(
      'tools',
      title,
      'quirk',
      `${summary}; ${plural(unannounced.length, 'update')} for calls never announced with tool_call`,
      evidence,
      data,
    );
  return result(
    'tools',
    title,
    'works',
    `${summary}; statuses ${[...new Set(calls.flatMap((c) => c.statuses))].join('/')}`,
    evidence,
    data,
  );
}

function permissionsRow(ctx: ProbeContext, run: TurnRun): CheckResult {
  const title = 'permissions';
  const sid = ctx.session.id;
  const asks = run.frames.filter((r) => isRequest(r, 'session/request_permission', 'agent->client'));
  if (asks.length === 0) {
    return result('permissions', title, 'not_testable', 'no permission request in the tool turn', [], { requests: 0 });
  }
  const rows = asks.map((ask) => {
    const p = ask.msg.params as
      { toolCall?: { toolCallId?: unknown }; options?: { optionId?: unknown; kind?: unknown }[] } | undefined;
    const id = typeof p?.toolCall?.toolCallId === 'string' ? p.toolCall.toolCallId : '';
    // Announced = a tool_call with that id arrived before the request.
    const announced = run.updates.some(
      (r) => r.i < ask.i && updateOf(r, sid)?.sessionUpdate === 'tool_call' && updateOf(r, sid)?.toolCallId === id,
    );
    const answer = ctx.recorder.slice(ask.i).find((r) => isResponseTo(r, ask));
    const outcome = (answer?.msg.result as { outcome?: { outcome?: unknown; optionId?: unknown } } | undefined)
      ?.outcome;
    const kinds = (p?.options ?? []).map((o) => String(o.kind ?? '?'));
    return {
      id,
      announced,
      kinds,
      outcome: outcome
        ? `${String(outcome.outcome)}${outcome.optionId ? ` ${String(outcome.optionId)}` : ''}`
        : 'unanswered',
      frame: ask,
    };
  });
  const evidence = rows.map(
    (r) =>
      `${r.id || '(no toolCallId)'}: ${r.announced ? 'matches an announced tool call' : 'matches NO announced tool call'}; options ${r.kinds.join(', ')}; answered ${r.outcome}`,
  );
  evidence.push(...asks.slice(0, 2).map((a) => brief(a)));
  const data = { requests: rows.map(({ frame: _f, ...r }) => r) };
  const unmatched = rows.filter((r) => !r.announced);
  if (unmatched.length) {
    return result(
      'permissions',
      title,
      'quirk',
      `${plural(rows.length, 'request')}; ${unmatched.length} with a toolCallId that matches no announced call (${unmatched.map((r) => r.id).join(', ')})`,
      evidence,
      data,
    );
  }
  return result(
    'permissions',
    title,
    'works',
    `${plural(rows.length, 'request')}, each naming an announced tool call; answered allow_once by the probe`,
    evidence,
    data,
  );
}
