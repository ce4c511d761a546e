/**
 * The matrix script: the same prompts for every agent, each checked against what really happened
 * (files on disk, the fake model's request log, the thread, the permission audit), never against
 * the agent's own say-so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { FakeModel } from '../fake-model/index.js';
import type { Session } from '../../../src/session/session.js';
import type { TurnResult } from '../../../src/session/turn.js';
import type { Entry, ToolCallEntry } from '../../../src/thread/types.js';
import type { AgentProcess } from './agent-process.js';
import { watchTurn } from './watchdog.js';
import { READ_MARKER, WRITE_MARKER, type Workspace } from './workspace.js';

export interface Check {
  ok: boolean;
  detail: string;
  /** The scenario cannot apply to this agent (the cell is n/a, with the reason in `detail`). */
  na?: boolean;
}

export interface TurnRun {
  result: TurnResult;
  entries: Entry[];
  text: string;
  tools: ToolCallEntry[];
  decided: AgentProcess['decided'];
  asked: AgentProcess['asked'];
  /** prompt sent → first non-empty assistant text. */
  firstTokenMs?: number;
  stalled?: string;
}

export interface ScenarioCtx {
  session: Session;
  proc: AgentProcess;
  model: FakeModel;
  ws: Workspace;
  stallMs: number;
  /** False for agents that never ask (pi). */
  asksPermission?: boolean;
}

export async function runTurn(
  ctx: ScenarioCtx,
  prompt: string,
  during?: (turnId: string) => Promise<void>,
): Promise<TurnRun> {
  const { session, proc } = ctx;
  const decidedFrom = proc.decided.length;
  const askedFrom = proc.asked.length;
  const modelFrom = ctx.model.requests.length;
  const t0 = performance.now();
  let firstTokenMs: number | undefined;
  const unsub = session.subscribe((e) => {
    if (firstTokenMs !== undefined) return;
    if (
      (e.type === 'entry.added' || e.type === 'entry.updated') &&
      (e.entry as Entry).kind === 'assistant_message' &&
      (e.entry as { text: string }).text.trim() !== ''
    ) {
      firstTokenMs = Math.round(performance.now() - t0);
    }
  });
  const turn = session.prompt(prompt);
  const watching = watchTurn(session, turn, proc.rec, ctx.stallMs);
  if (during) void during(turn.id).catch(() => undefined);
  const { result, stalled } = await watching;
  unsub();
  const entries = session.thread.entries.filter((e) => e.turnId === result.turnId);
  const text = entries
    .filter((e) => e.kind === 'assistant_message')
    .map((e) => (e as { text: string }).text)
    .join('');
  return {
    result,
    entries,
    text,
    tools: entries.filter((e): e is ToolCallEntry => e.kind === 'tool_call'),
    decided: proc.decided.slice(decidedFrom),
    asked: proc.asked.slice(askedFrom),
    ...(firstTokenMs !== undefined ? { firstTokenMs } : {}),
    ...(stalled ? { stalled: `${stalled.message}; ${modelSide(ctx.model, modelFrom)}` } : {}),
  };
}

/** What the fake model saw of a stalled turn: whether the agent hung before asking it, or on its answer. */
export function modelSide(model: Pick<FakeModel, 'requests'>, from: number): string {
  const seen = model.requests.slice(from);
  const last = seen[seen.length - 1];
  if (!last) return 'the fake model got no request in the turn';
  const state = last.done ? 'answered' : 'not answered yet';
  return `the fake model got ${seen.length} request(s) in the turn, the last (${last.api} ${last.action.kind}, ${last.status}) ${state}`;
}

function ended(r: TurnRun): Check | undefined {
  if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
  if (r.result.error)
    return { ok: false, detail: `turn error ${r.result.error.code}: ${r.result.error.message.slice(0, 200)}` };
  if (r.asked.length)
    return {
      ok: false,
      detail: `policy left ${r.asked.length} permission(s) to a person: ${r.asked
        .map((a) => a.title ?? a.toolCallId)
        .join('; ')
        .slice(0, 200)}`,
    };
  return undefined;
}

/** The fake model received a tool result containing `needle` (it answers those with "Done: …"). */
function modelSawResult(model: FakeModel, from: number, needle: string): boolean {
  return model.requests
    .slice(from)
    .some((r) => r.action.kind === 'final' && 'text' in r.action && r.action.text.includes(needle));
}

export async function textScenario(ctx: ScenarioCtx): Promise<Check & { firstTokenMs?: number }> {
  const r = await runTurn(ctx, 'Please reply to this matrix text probe.');
  const bad = ended(r);
  if (bad) return bad;
  const ok = r.text.includes('matrix text probe') && r.result.stopReason === 'end_turn';
  return {
    ok,
    detail: ok
      ? `echoed (${r.text.length} chars), ${r.result.stopReason}`
      : `unexpected answer ${JSON.stringify(r.text.slice(0, 120))} ${r.result.stopReason}`,
    ...(r.firstTokenMs !== undefined ? { firstTokenMs: r.firstTokenMs } : {}),
  };
}

export async function shellScenario(ctx: ScenarioCtx): Promise<Check> {
  const from = ctx.model.requests.length;
  const r = await runTurn(ctx, 'Run this command: [[bash: echo matrix-ok]]');
  const bad = ended(r);
  if (bad) return bad;
  if (!modelSawResult(ctx.model, from, 'matrix-ok'))
    return {
      ok: false,
      detail: `the model never got the command output; tools: ${describeTools(r.tools)}; text ${JSON.stringify(r.text.slice(0, 120))}`,
    };
  if (r.tools.length === 0) return { ok: false, detail: 'the command ran but no tool call reached the thread' };
  const open = r.tools.filter((t) => t.status !== 'completed');
  if (open.length) return { ok: false, detail: `tool calls not completed: ${describeTools(open)}` };
  return { ok: true, detail: `ran; ${describeTools(r.tools)}` };
}

export async function readScenario(ctx: ScenarioCtx): Promise<Check> {
  const from = ctx.model.requests.length;
  const r = await runTurn(ctx, `Read this file: [[read: ${ctx.ws.readPath}]]`);
  const bad = ended(r);
  if (bad) return bad;
  // The marker is only in the file, so any later request carrying it proves the read (results can be long and wrapped).
  const sawIt = ctx.model.requests
    .slice(from)
    .some((q) => q.action.kind === 'final' && JSON.stringify(q.body).includes(READ_MARKER));
  if (!sawIt) return { ok: false, detail: `the model never got the file content; tools: ${describeTools(r.tools)}` };
  return { ok: true, detail: `read; ${describeTools(r.tools)}` };
}

export async function writeScenario(ctx: ScenarioCtx): Promise<Check> {
  const r = await runTurn(ctx, `Write a file: [[write: ${ctx.ws.writePath} | ${WRITE_MARKER}]]`);
  const bad = ended(r);
  if (bad) return bad;
  const content = existsSync(ctx.ws.writePath) ? readFileSync(ctx.ws.writePath, 'utf8').trim() : undefined;
  if (content !== WRITE_MARKER)
    return {
      ok: false,
      detail: `file ${content === undefined ? 'not written' : `holds ${JSON.stringify(content.slice(0, 60))}`}; tools: ${describeTools(r.tools)}`,
    };
  if (ctx.asksPermission === false)
    return {
      ok: true,
      na: true,
      detail: `written, but this agent never sends session/request_permission: no policy can apply (${describeTools(r.tools)})`,
    };
  const byPolicy = r.decided.filter(
    (d) => d.decidedBy === 'policy' && d.outcome && (d.outcome as { outcome?: string }).outcome === 'selected',
  );
  if (byPolicy.length === 0)
    return { ok: false, detail: 'written, but no permission was asked (or not answered by policy)' };
  return {
    ok: true,
    detail: `written; permission ${byPolicy
      .map((d) => d.reason)
      .join('; ')
      .slice(0, 120)}`,
  };
}

export async function denyScenario(ctx: ScenarioCtx): Promise<Check> {
  const r = await runTurn(ctx, `Run this command: [[bash: touch ${ctx.ws.deniedPath}]]`);
  if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
  if (ctx.asksPermission === false) {
    return {
      ok: false,
      na: true,
      detail: `this agent never sends session/request_permission, so a deny rule cannot stop it (the command ${existsSync(ctx.ws.deniedPath) ? 'ran' : 'did not run'})`,
    };
  }
  if (existsSync(ctx.ws.deniedPath)) return { ok: false, detail: 'the denied command ran' };
  const denied = r.decided.filter((d) => d.decidedBy === 'policy' && /denied by rule/.test(d.reason));
  if (denied.length === 0)
    return {
      ok: false,
      detail: `no permission denied by policy (asked: ${r.asked.length}, decided: ${r.decided.map((d) => d.reason).join('; ')})`,
    };
  if (r.result.error)
    return { ok: false, detail: `turn error after the denial: ${r.result.error.message.slice(0, 160)}` };
  return { ok: true, detail: `denied by policy; tools: ${describeTools(r.tools)}; ${r.result.stopReason}` };
}

export async function cancelScenario(ctx: ScenarioCtx): Promise<Check> {
  const from = ctx.model.requests.length;
  const t0 = performance.now();
  let cancelledAt = 0;
  // Not a bare `sleep 30`: qwen refuses a standalone sleep ("run blocking commands in the background").
  const command = longCommand(ctx.ws);
  const r = await runTurn(ctx, `Run this command: [[bash: ${command}]]`, async (turnId) => {
    // Cancel once the long tool is running: a tool call in progress, or its permission granted,
    // or (agents that say nothing before the tool ends) the model having handed out the call.
    let handedOutAt = 0;
    let runningAt = 0;
    await new Promise<void>((resolve) => {
      const started = (): boolean => {
        // Best evidence: the tool's own process exists (its command line names this workspace).
        if (processRunning(ctx.ws.readPath)) return true;
        if (performance.now() - t0 < 5000) return false;
        const calls = ctx.session.thread.entries.filter((e) => e.turnId === turnId && e.kind === 'tool_call');
        if (calls.some((e) => e.kind === 'tool_call' && e.permission?.status === 'allowed')) return true;
        // codex announces `in_progress` a moment BEFORE it asks: in progress for a second with no permission pending.
        const running = calls.some(
          (e) => e.kind === 'tool_call' && e.status === 'in_progress' && e.permission?.status !== 'pending',
        );
        runningAt = running ? runningAt || performance.now() : 0;
        if (runningAt && performance.now() - runningAt > 1000) return true;
        // Agents that say nothing while a tool runs: the model handed out the call a moment ago.
        if (!handedOutAt && ctx.model.requests.slice(from).some((q) => q.action.kind === 'tool' && q.done))
          handedOutAt = performance.now();
        return handedOutAt > 0 && performance.now() - handedOutAt > 2000;
      };
      if (started()) return resolve();
      const unsub = ctx.session.subscribe(() => started() && (unsub(), clearInterval(poll), resolve()));
      const poll = setInterval(() => started() && (unsub(), clearInterval(poll), resolve()), 100);
    });
    cancelledAt = performance.now();
    await ctx.session.cancel();
  });
  const tookS = ((performance.now() - t0) / 1000).toFixed(1);
  if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
  if (!cancelledAt) return { ok: false, detail: `the tool never started; ${r.result.stopReason}` };
  if (r.result.stopReason !== 'cancelled')
    return {
      ok: false,
      detail: `stopReason ${r.result.stopReason}${r.result.error ? ` (${r.result.error.message.slice(0, 120)})` : ''}`,
    };
  const notCancelled = r.tools.filter((t) => t.status !== 'cancelled');
  if (notCancelled.length) return { ok: false, detail: `tool calls left ${describeTools(notCancelled)}` };
  const secs = (performance.now() - cancelledAt) / 1000;
  if (secs > 25) return { ok: false, detail: `the turn ran on ${secs.toFixed(0)} s after cancel` };
  // The agent may kill its tool just after answering (claude-code-acp releases our terminal then).
  for (let i = 0; i < 30 && processRunning(ctx.ws.readPath); i++) await new Promise((res) => setTimeout(res, 100));
  const alive = processRunning(ctx.ws.readPath) ? '; the tool process still ran 3 s after the turn' : '';
  return {
    ok: true,
    detail: `cancelled after ${tookS} s (answered ${secs.toFixed(1)} s after cancel); ${describeTools(r.tools)}${alive}`,
  };
}

/** A tool that runs for 30 s unless it is killed; its command line names the workspace. */
export function longCommand(ws: Workspace): string {
  // --foreground: plain `timeout` moves the command into its own process group, out of reach of a group kill.
  return `timeout --foreground 30 tail -f ${ws.readPath}`;
}

/** Whether some process on this machine has `marker` in its command line (Linux /proc). */
export function processRunning(marker: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes(marker) && cmd.includes('tail')) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

export async function errorScenario(ctx: ScenarioCtx): Promise<Check> {
  const r = await runTurn(ctx, 'Trigger a model failure: [[error: 400]]');
  if (r.stalled) return { ok: false, detail: `stalled: ${r.stalled}` };
  const e = r.result.error;
  if (!e)
    return {
      ok: false,
      detail: `no error reported: ${r.result.stopReason}, text ${JSON.stringify(r.text.slice(0, 120))}`,
    };
  if (e.code !== 'agent_error') return { ok: false, detail: `error code ${e.code}: ${e.message.slice(0, 160)}` };
  const detail = JSON.stringify(e);
  const hasDetail = /invalid request|\b400\b/i.test(detail);
  return {
    ok: hasDetail,
    detail: `${hasDetail ? '' : 'provider detail missing: '}agent_error ${JSON.stringify(e.message.slice(0, 160))}`,
  };
}

export function describeTools(tools: ToolCallEntry[]): string {
  if (tools.length === 0) return 'no tool calls';
  return tools
    .map(
      (t) =>
        `${t.title.slice(0, 40)} [${t.status}${t.settledBy && t.settledBy !== 'agent' ? ` by ${t.settledBy}` : ''}]`,
    )
    .join(', ');
}
