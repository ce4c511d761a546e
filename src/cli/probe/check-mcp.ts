/**
 * An MCP server tool: the probe's echo server was registered in session/new; the agent is asked
 * to call its tool. The server's log says whether the agent started it, listed its tools and
 * called it; the nonce in its output shows the answer reached the agent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { result, short, type ProbeContext } from './context.js';
import { describeCall, traceToolCalls } from './tool-calls.js';
import { runTurn, strings, turnProblem } from './turn.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME, type CheckResult } from './types.js';

interface ServerLog {
  started: boolean;
  listed: boolean;
  called: boolean;
}

function readLog(file: string): ServerLog {
  const methods = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return String((JSON.parse(l) as { method?: unknown }).method);
          } catch {
            return '';
          }
        })
    : [];
  return {
    started: methods.includes('initialize'),
    listed: methods.includes('tools/list'),
    called: methods.includes('tools/call'),
  };
}

const logLine = (l: ServerLog): string =>
  `the probe's MCP server: ${l.started ? 'started by the agent' : 'never started'}${l.listed ? ', tools listed' : ''}${l.called ? ', tool called' : ''}`;

export async function checkMcp(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'MCP server tool';
  if (ctx.mcpRefused)
    return result(
      'mcp',
      title,
      'broken',
      `session/new refused the stdio MCP server (ACP: every agent accepts stdio servers): ${ctx.mcpRefused}`,
    );
  if (!ctx.mcpServer) return result('mcp', title, 'skipped', 'the MCP server was not registered');
  const steer = ctx.steering.mcp;
  if (!steer) {
    const l = readLog(ctx.ws.mcpLog);
    if (l.listed)
      return result('mcp', title, 'supported', `${logLine(l)}; no known way to make this agent call it`, [], { ...l });
    return result('mcp', title, 'not_testable', `no known way to make this agent call an MCP tool; ${logLine(l)}`, [], {
      ...l,
    });
  }
  if (ctx.busy) return result('mcp', title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const run = await runTurn(ctx, steer(MCP_SERVER_NAME, MCP_TOOL_NAME));
  const { calls } = traceToolCalls(run.updates, ctx.session.id);
  const l = readLog(ctx.ws.mcpLog);
  const call = calls.find((c) => c.text.some((s) => s.includes(MCP_TOOL_NAME)));
  const answered = run.frames.some((r) => strings(r.msg).some((s) => s.includes(ctx.mcpNonce)));
  const evidence = [logLine(l), ...calls.map(describeCall), `reply: ${short(run.text, 160)}`];
  const data = { ...l, toolCall: call?.id, title: call?.title, outputReachedAgent: answered };
  const problem = turnProblem(run, ctx.timeoutMs);
  if (problem) return result('mcp', title, 'broken', problem, evidence, data);
  if (call) {
    const how = answered
      ? "the server's answer (nonce) came back"
      : l.called
        ? 'the server was called'
        : "the call never reached the probe's server";
    return result(
      'mcp',
      title,
      'works',
      `tool call ${call.id} "${short(call.title ?? '', 50)}"; ${how}`,
      evidence,
      data,
    );
  }
  if (l.listed)
    return result(
      'mcp',
      title,
      'supported',
      `${logLine(l)}, but the prompt did not make the agent call ${MCP_TOOL_NAME}`,
      evidence,
      data,
    );
  return result('mcp', title, 'not_testable', `the agent made no MCP tool call; ${logLine(l)}`, evidence, data);
}
