/**
 * Scenarios through the real command line, as a user runs them: `talaria run` with `--agent ID`
 * or `--agent-cmd "COMMAND ARGS"`, the agent's env from config.json (setupRow), `--approve` as
 * the only permission setting. Each is judged by what happened (files on disk, the fake model's
 * requests, the exit code and the run's own events), never by the agent's say-so.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeModel } from '../fake-model/index.js';
import type { AgentProfile } from '../profiles/types.js';
import { setupRow, type By } from './row.js';
import type { Check } from './scenarios.js';
import { WRITE_MARKER, type Workspace } from './workspace.js';

const TALARIA = fileURLToPath(new URL('../../../bin/talaria.js', import.meta.url));

export type CliScenario = 'cli' | 'cli-write' | 'cli-deny' | 'cli-error';

export interface CliCtx {
  ws: Workspace;
  model: FakeModel;
  installDir: string;
  logs: string;
  by: By;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  events: { type: string; [k: string]: unknown }[];
}

async function talaria(profile: AgentProfile, c: CliCtx, name: CliScenario, args: string[]): Promise<Ran> {
  const row = await setupRow(profile, {
    ws: c.ws,
    installDir: c.installDir,
    modelUrl: c.model.url,
    credentials: true,
    label: name,
    by: c.by,
    inProcess: false,
  });
  const all = [
    TALARIA,
    'run',
    ...row.agentArgs,
    '--cwd',
    c.ws.cwd,
    '--ndjson',
    '--wire-log',
    join(c.logs, `${name}.ndjson`),
    ...args,
  ];
  return new Promise<Ran>((resolve) => {
    const child = spawn(process.execPath, all, { cwd: c.ws.cwd, env: row.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Ran['events'][number]];
          } catch {
            return [];
          }
        });
      resolve({ code, stdout, stderr, events });
    });
  });
}

const ended = (r: Ran) =>
  r.events.find((e) => e.type === 'run.ended') as
    { stopReason?: string; exitCode?: number; error?: { code?: string; message?: string } } | undefined;
const policyDecisions = (r: Ran) =>
  r.events.filter((e) => e.type === 'permission.decided' && e.decidedBy === 'policy') as {
    outcome?: { outcome?: string; optionId?: string };
    reason?: string;
  }[];
const brief = (r: Ran) => {
  const end = ended(r);
  return `exit ${r.code}, ${end?.stopReason ?? 'no run.ended'}${end?.error ? ` (${end.error.code}: ${String(end.error.message).slice(0, 100)})` : ''}${r.code !== 0 && !end ? `; stderr: ${r.stderr.slice(-200)}` : ''}`;
};

/** `--approve all`, a shell command: it runs and its output reaches the model. */
export async function cliShell(profile: AgentProfile, c: CliCtx): Promise<Check> {
  const from = c.model.requests.length;
  const r = await talaria(profile, c, 'cli', ['--approve', 'all', 'Run this command: [[bash: echo matrix-ok]]']);
  const ran = c.model.requests
    .slice(from)
    .some((q) => q.action.kind === 'final' && 'text' in q.action && q.action.text.includes('matrix-ok'));
  return {
    ok: r.code === 0 && ended(r)?.stopReason === 'end_turn' && ran,
    detail: `${brief(r)}; command output ${ran ? 'reached' : 'did NOT reach'} the model`,
  };
}

/** `--approve edits`, a new file: written, and (where the agent asks) allowed by the policy. */
export async function cliWrite(profile: AgentProfile, c: CliCtx, path: string): Promise<Check> {
  const r = await talaria(profile, c, 'cli-write', [
    '--approve',
    'edits',
    `Write a file: [[write: ${path} | ${WRITE_MARKER}]]`,
  ]);
  const content = existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
  if (r.code !== 0 || content !== WRITE_MARKER)
    return {
      ok: false,
      detail: `${brief(r)}; file ${content === undefined ? 'not written' : `holds ${JSON.stringify(content.slice(0, 60))}`}`,
    };
  const allowed = policyDecisions(r).filter((d) => d.outcome?.outcome === 'selected');
  if (profile.asksPermission === false)
    return { ok: true, na: true, detail: `written; this agent never asks, so --approve cannot apply (${brief(r)})` };
  return {
    ok: allowed.length > 0,
    detail: `${brief(r)}; written; ${allowed.length ? `allowed by --approve edits (${allowed[0]!.reason ?? ''})` : 'but no permission was asked'}`,
  };
}

/** `--approve none`, a new file: the agent must not write it (qwen in its own auto mode did). */
export async function cliDeny(profile: AgentProfile, c: CliCtx, path: string): Promise<Check> {
  const r = await talaria(profile, c, 'cli-deny', [
    '--approve',
    'none',
    `Write a file: [[write: ${path} | ${WRITE_MARKER}]]`,
  ]);
  const written = existsSync(path);
  if (profile.asksPermission === false)
    return {
      ok: false,
      na: true,
      detail: `this agent never asks, so --approve none cannot stop it (file ${written ? 'written' : 'not written'}; ${brief(r)})`,
    };
  const denied = policyDecisions(r).filter((d) => /^denied by rule/.test(d.reason ?? ''));
  if (written) return { ok: false, detail: `the file was written anyway (${brief(r)}; ${denied.length} denial(s))` };
  return {
    ok: denied.length > 0,
    detail: `${brief(r)}; not written; ${denied.length ? `denied by --approve none` : 'no permission was asked'}`,
  };
}

/** A model HTTP 400: the run must end as an agent error, exit 5 (copilot and pi said nothing about it). */
export async function cliError(profile: AgentProfile, c: CliCtx): Promise<Check> {
  const r = await talaria(profile, c, 'cli-error', ['Trigger a model failure: [[error: 400]]']);
  const e = ended(r)?.error;
  return { ok: r.code === 5 && e?.code === 'agent_error', detail: brief(r) };
}
