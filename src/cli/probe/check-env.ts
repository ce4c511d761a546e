/**
 * Env reaching the agent's shell: the agent was started with TALARIA_PROBE_MARKER in its launch
 * env; it is asked to `echo "$TALARIA_PROBE_MARKER"`. The prompt names the variable only, so the
 * value can appear in the turn's frames only if the shell saw it.
 */
import { result, short, type ProbeContext } from './context.js';
import { isRequest } from './recorder.js';
import { describeCall, traceToolCalls } from './tool-calls.js';
import { runTurn, strings, turnProblem } from './turn.js';
import { MARKER_VAR, type CheckResult } from './types.js';

export async function checkEnv(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'env reaches the shell';
  const steer = ctx.steering.run;
  if (!steer) return result('env', title, 'not_testable', 'no known way to make this agent run a command');
  if (ctx.busy) return result('env', title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const command = `echo "$${MARKER_VAR}"`;
  const run = await runTurn(ctx, steer(command));
  const sid = ctx.session.id;
  const { calls } = traceToolCalls(run.updates, sid);
  const marker = ctx.marker;
  const inCall = calls.find((c) => c.text.some((s) => s.includes(marker)));
  const inFrame = run.frames.find((r) => strings(r.msg).some((s) => s.includes(marker)));
  const viaTerminal = run.frames.some((r) => isRequest(r, 'terminal/create', 'agent->client'));
  const shell = calls.filter((c) => c.kind === 'execute' || c.text.some((s) => s.includes(MARKER_VAR)));
  const evidence = [`${MARKER_VAR}=${marker} set in the launch env`, ...calls.map(describeCall)];
  if (viaTerminal)
    evidence.push("the agent ran it through the client's terminal/create (Talaria's terminal env, not the launch env)");
  const data = {
    marker,
    found: Boolean(inFrame),
    toolCalls: calls.length,
    viaClientTerminal: viaTerminal,
    reply: run.text.slice(0, 200),
  };
  const problem = turnProblem(run, ctx.timeoutMs);
  if (problem) return result('env', title, 'broken', problem, evidence, data);
  if (inCall)
    return result(
      'env',
      title,
      'works',
      `marker found in the output of ${inCall.id} "${short(inCall.title ?? '', 50)}"`,
      evidence,
      data,
    );
  if (inFrame)
    return result(
      'env',
      title,
      'works',
      `marker found in the turn (${inFrame.dir} ${inFrame.msg.method ?? 'response'})`,
      evidence,
      data,
    );
  if (shell.length) {
    return result(
      'env',
      title,
      'broken',
      `the command ran (${shell[0]!.id}) but its output lacks the marker: the launch env did not reach the shell`,
      evidence,
      data,
    );
  }
  return result(
    'env',
    title,
    'not_testable',
    `the agent ran no command (reply: "${short(run.text, 60)}")`,
    evidence,
    data,
  );
}
