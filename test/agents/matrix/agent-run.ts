/** Runs the whole matrix script against one agent: install, two processes (keyed / keyless), every scenario. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../fake-model/index.js';
import { TalariaError } from '../../../src/protocol/errors.js';
import type { Session } from '../../../src/session/session.js';
import { ensureInstalled } from '../profiles/install.js';
import type { AgentProfile } from '../profiles/types.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { detectQuirks, type QuirkName } from './quirks.js';
import { cancelScenario, denyScenario, errorScenario, readScenario, runTurn, shellScenario, textScenario, writeScenario, type Check, type ScenarioCtx } from './scenarios.js';
import type { AgentResult, Cell, ScenarioName } from './types.js';
import { makeWorkspace } from './workspace.js';
import { cliScenario } from './cli-scenario.js';
import { hostKeylessRun } from './host-keyless.js';

export interface RunOptions {
  logRoot: string;
  /** No frame from the agent for this long during a turn = stalled. */
  stallMs: number;
  /** Shorter watchdog for the keyless run of agents that hang without credentials. */
  hangStallMs: number;
  keepWorkspace?: boolean;
  progress?: (line: string) => void;
}

export async function runAgent(profile: AgentProfile, opts: RunOptions): Promise<AgentResult> {
  const say = opts.progress ?? (() => undefined);
  const logs = join(opts.logRoot, profile.name);
  rmSync(logs, { recursive: true, force: true });
  const out: AgentResult = { agent: profile.name, version: profile.version, install: { error: 'not started' }, cells: {}, logs };
  let installDir: string;
  try {
    say(`${profile.name}: installing ${profile.packages.join(' ')}`);
    const inst = await ensureInstalled(profile.name, profile.version, profile.packages, profile.entry);
    out.install = { ms: inst.ms, bytes: inst.bytes, cached: !inst.installed };
    installDir = inst.dir;
  } catch (err) {
    out.install = { error: String(err).slice(0, 500) };
    return out;
  }
  const model = await startFakeModel({ slowChunkMs: 200 });
  const ws = makeWorkspace(profile.name);
  try {
    await keyedRun(profile, out, { ws, model, installDir, logs, opts, say });
    await keylessRun(profile, out, { ws, model, installDir, logs, opts, say });
    if (!profile.errorPathsOnly) {
      say(`${profile.name}: cli`);
      out.cells.cli = await cell(() => cliScenario(profile, { ws, model, installDir, logs }), []);
    } else out.cells.cli = na();
  } finally {
    await model.close();
    if (!opts.keepWorkspace) rmSync(ws.root, { recursive: true, force: true });
  }
  return out;
}

interface RunCtx {
  ws: ReturnType<typeof makeWorkspace>;
  model: FakeModel;
  installDir: string;
  logs: string;
  opts: RunOptions;
  say: (l: string) => void;
}

function na(detail = 'cannot run: the agent has no working backend offline'): Cell {
  return { status: 'n/a', detail, quirks: [], ms: 0 };
}

async function cell(fn: () => Promise<Check>, frames: (() => QuirkName[]) | QuirkName[]): Promise<Cell> {
  const t0 = performance.now();
  let c: Check;
  try {
    c = await fn();
  } catch (err) {
    c = { ok: false, detail: `threw: ${err instanceof Error ? err.message : String(err)}`.slice(0, 400) };
  }
  const quirks = typeof frames === 'function' ? frames() : frames;
  const status = c.na ? 'n/a' : !c.ok ? 'broken' : quirks.length ? 'quirk' : 'works';
  return { status, detail: c.detail, quirks, ms: Math.round(performance.now() - t0) };
}

/** Runs one scenario and marks the quirks seen in its frames. */
async function scenario(proc: AgentProcess, logs: string, name: ScenarioName, fn: () => Promise<Check>): Promise<Cell> {
  const from = proc.rec.mark();
  let to = from;
  const c = await cell(fn, () => {
    to = proc.rec.mark();
    return [...detectQuirks(proc.rec.frames.slice(from, to)).keys()];
  });
  proc.rec.write(join(logs, `${name.replace('/', '-')}.ndjson`), from, to);
  return c;
}

async function keyedRun(profile: AgentProfile, out: AgentResult, r: RunCtx): Promise<void> {
  const { ws, model, installDir, logs, opts, say } = r;
  say(`${profile.name}: starting (with credentials)`);
  const proc = await startAgent(profile, { ws, installDir, modelUrl: model.url, credentials: true, label: 'keyed' });
  try {
    const initQuirks = [...detectQuirks(proc.rec.frames).keys()];
    if (!proc.client) {
      out.cells.initialize = { status: 'broken', detail: `initialize failed: ${String(proc.initError).slice(0, 300)}`, quirks: initQuirks, ms: proc.initMs };
      return;
    }
    out.timeToInitializeMs = proc.initMs;
    const auth = proc.client.capabilities.authMethods.map((m) => (m as { id?: string }).id).join(', ');
    out.cells.initialize = { status: initQuirks.length ? 'quirk' : 'works', detail: `${proc.initMs} ms; authMethods: ${auth || 'none'}`, quirks: initQuirks, ms: proc.initMs };
    proc.rec.write(join(logs, 'initialize.ndjson'));
    if (profile.errorPathsOnly) {
      await errorPathsOnly(profile, out, proc, r);
      return;
    }
    let session: Session | undefined;
    out.cells['session/new'] = await scenario(proc, logs, 'session/new', async () => {
      session = await proc.client!.newSession({ cwd: ws.cwd });
      if (profile.initialMode) await session.setMode(profile.initialMode);
      const c = session.catalog;
      return { ok: true, detail: `session ${session.id.slice(0, 12)}…; catalog ${JSON.stringify(Object.keys(c)).slice(0, 80)}` };
    });
    if (!session) return;
    const ctx: ScenarioCtx = { session, proc, model, ws, stallMs: opts.stallMs, ...(profile.asksPermission === false ? { asksPermission: false } : {}) };
    const steps: [ScenarioName, () => Promise<Check & { firstTokenMs?: number }>][] = [
      ['text', () => textScenario(ctx)],
      ['shell', () => shellScenario(ctx)],
      ['read', () => readScenario(ctx)],
      ['write', () => writeScenario(ctx)],
      ['deny', () => denyScenario(ctx)],
      ['error-400', () => errorScenario(ctx)],
      ['cancel', () => cancelScenario(ctx)],
    ];
    for (const [name, fn] of steps) {
      say(`${profile.name}: ${name}`);
      out.cells[name] = await scenario(proc, logs, name, async () => {
        const c = await fn();
        if (c.firstTokenMs !== undefined && out.timeToFirstTokenMs === undefined) out.timeToFirstTokenMs = c.firstTokenMs;
        return c;
      });
      if (proc.client.connection.isClosed) break;
    }
  } finally {
    out.stderrTail = proc.stderrTail().slice(-800);
    await proc.close();
    proc.rec.write(join(logs, 'keyed-all.ndjson'));
  }
}

/** Cursor's backend is not on npm: a session and a prompt must fail cleanly, nothing more. */
async function errorPathsOnly(profile: AgentProfile, out: AgentResult, proc: AgentProcess, r: RunCtx): Promise<void> {
  for (const n of ['shell', 'read', 'write', 'deny', 'cancel', 'error-400'] as const) out.cells[n] = na();
  let session: Session | undefined;
  out.cells['session/new'] = await scenario(proc, r.logs, 'session/new', async () => {
    session = await proc.client!.newSession({ cwd: r.ws.cwd });
    return { ok: true, detail: `session ${session.id.slice(0, 12)}…` };
  });
  if (!session) return;
  const ctx: ScenarioCtx = { session, proc, model: r.model, ws: r.ws, stallMs: r.opts.stallMs };
  out.cells.text = await scenario(proc, r.logs, 'text', async () => {
    const t = await runTurn(ctx, 'Please reply to this matrix text probe.');
    const e = t.result.error;
    if (!e) return { ok: false, detail: `no error: ${t.result.stopReason} ${JSON.stringify(t.text.slice(0, 100))}` };
    return { ok: e.code === 'auth_required' || e.code === 'agent_error', detail: `${e.code}: ${e.message.slice(0, 160)}` };
  });
}

/** The keyless run: no key anywhere. The outcome must be a readiness gap listing auth methods, or a caught stall. */
async function keylessRun(profile: AgentProfile, out: AgentResult, r: RunCtx): Promise<void> {
  const { ws, model, installDir, logs, opts, say } = r;
  say(`${profile.name}: no-credentials`);
  if (profile.noCredentials === 'hang') {
    // A silent hang: the host's own stall watchdog must catch it (no quirk detection: it is one prompt).
    out.cells['no-credentials'] = await cell(() => hostKeylessRun(profile, { ws, installDir, modelUrl: model.url, logs, stallMs: opts.hangStallMs }), ['silent-hang-caught']);
    return;
  }
  const proc = await startAgent(profile, { ws, installDir, modelUrl: model.url, credentials: false, label: 'keyless' });
  try {
    out.cells['no-credentials'] = await scenario(proc, logs, 'no-credentials', async () => {
      if (!proc.client) return { ok: false, detail: `initialize failed without credentials: ${String(proc.initError).slice(0, 200)}` };
      let session: Session;
      try {
        session = await proc.client.newSession({ cwd: ws.cwd });
      } catch (err) {
        return authGap(err, 'session/new');
      }
      const ctx: ScenarioCtx = { session, proc, model, ws, stallMs: profile.noCredentials === 'hang' ? opts.hangStallMs : opts.stallMs };
      const t = await runTurn(ctx, 'Please reply to this matrix text probe.');
      if (t.stalled) return { ok: profile.noCredentials === 'hang', detail: `stall watchdog: ${t.stalled}` };
      const e = t.result.error;
      if (!e) return { ok: false, detail: `the turn "worked" without credentials: ${t.result.stopReason} ${JSON.stringify(t.text.slice(0, 100))}` };
      return authGap(e, 'prompt');
    });
  } finally {
    await proc.close();
    proc.rec.write(join(logs, 'keyless-all.ndjson'));
  }
}

/** A TalariaError from session/new, or a TurnError from a prompt: `auth_required` with its methods listed. */
function authGap(err: unknown, where: string): Check {
  const e = err as { code?: unknown; details?: unknown; data?: unknown; message?: string };
  if (e?.code === 'auth_required') {
    const data = (err instanceof TalariaError ? e.details : e.data) as { authMethods?: { id?: string; type?: string }[] } | undefined;
    const methods = (data?.authMethods ?? []).map((m) => `${m.id ?? '?'}${m.type ? `(${m.type})` : ''}`);
    return { ok: methods.length > 0, detail: `auth_required at ${where}; methods: ${methods.join(', ') || 'NONE LISTED'}` };
  }
  return { ok: false, detail: `at ${where}: ${String(e?.code)} ${String(e?.message ?? err).slice(0, 200)}` };
}
