/**
 * One scenario through the real command line: `talaria run --agent-cmd … --approve all --json` with
 * the shell-tool prompt. The CLI passes only allow-listed variables to an agent, so the profile's
 * own variables ride in front of the command through `env(1)`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeModel } from '../fake-model/index.js';
import { offlineEnv } from '../profiles/env.js';
import type { AgentProfile } from '../profiles/types.js';
import type { Check } from './scenarios.js';
import type { Workspace } from './workspace.js';

const TALARIA = fileURLToPath(new URL('../../../bin/talaria.js', import.meta.url));

/** Quotes one word for the CLI's POSIX-like `--agent-cmd` splitter. */
function q(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function cliScenario(profile: AgentProfile, o: { ws: Workspace; model: FakeModel; installDir: string; logs: string }): Promise<Check> {
  const { home, tmp } = o.ws.freshHome('cli');
  const launch = await profile.launch({ installDir: o.installDir, home, tmp, cwd: o.ws.cwd, modelUrl: o.model.url, credentials: true });
  const env = offlineEnv({ home, tmp, installDir: o.installDir, extra: {} });
  const agentEnv = Object.entries(launch.env).map(([k, v]) => `${k}=${v}`);
  const agentCmd = ['/usr/bin/env', ...agentEnv, launch.command, ...launch.args].map(q).join(' ');
  const wireLog = join(o.logs, 'cli.ndjson');
  const from = o.model.requests.length;
  const args = [TALARIA, 'run', '--agent-cmd', agentCmd, '--cwd', o.ws.cwd, '--approve', 'all', '--json', '--wire-log', wireLog, 'Run this command: [[bash: echo matrix-ok]]'];
  const childEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: o.ws.cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
  let json: { stopReason?: string; exitCode?: number; text?: string; toolCalls?: { status: string }[]; error?: { message: string } } | undefined;
  try {
    json = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as typeof json;
  } catch {
    return { ok: false, detail: `exit ${r.code}, no JSON on stdout; stderr: ${r.stderr.slice(-300)}` };
  }
  const ran = o.model.requests.slice(from).some((q2) => q2.action.kind === 'final' && 'text' in q2.action && q2.action.text.includes('matrix-ok'));
  const ok = r.code === 0 && json?.stopReason === 'end_turn' && ran;
  const tools = (json?.toolCalls ?? []).map((t) => t.status).join(',');
  return { ok, detail: `talaria run exit ${r.code}, ${json?.stopReason}${json?.error ? ` (${json.error.message.slice(0, 120)})` : ''}; tool calls [${tools}]; command output ${ran ? 'reached' : 'did NOT reach'} the model` };
}
