/**
 * Runs the whole matrix script against one agent, twice: started by Talaria's built-in id and by
 * its own command line. Each row: a keyed process through the library face (every scenario), a
 * keyless one (auth gap or a caught hang), and `talaria run` for the CLI cells.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../fake-model/index.js';
import { TalariaError } from '../../../src/protocol/errors.js';
import type { HarnessSession } from '../../../src/harness/index.js';
import type { Session } from '../../../src/session/session.js';
import { ensureInstalled } from '../profiles/install.js';
import type { AgentProfile } from '../profiles/types.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { cliDeny, cliError, cliShell, cliWrite, type CliCtx } from './cli-scenario.js';
import { readinessScenario } from './readiness.js';
import { continueScenario } from './continue.js';
import { rewindScenario } from './rewind.js';
import { steerScenario } from './steer.js';
import { detectQuirks, type QuirkName } from './quirks.js';
import type { By } from './row.js';
import {
  cancelScenario,
  denyScenario,
  errorScenario,
  readScenario,
  runTurn,
  shellScenario,
  textScenario,
  writeScenario,
  type Check,
  type ScenarioCtx,
} from './scenarios.js';
import type { AgentResult, Cell, ScenarioName } from './types.js';
import { makeWorkspace, type Workspace } from './workspace.js';

export interface RunOptions {
  logRoot: string;
  /** No frame from the agent for this long during a turn = stalled. */
  stallMs: number;
  /** Shorter watchdog for the keyless run of agents that hang without credentials. */
  hangStallMs: number;
  keepWorkspace?: boolean;
  /** Which rows (default both). */
  rows?: By[];
  progress?: (line: string) => void;
}

export async function runAgent(profile: AgentProfile, opts: RunOptions): Promise<AgentResult[]> {
  const say = opts.progress ?? (() => undefined);
  const base = { agent: profile.name, version: profile.version };
  let install: AgentResult['install'];
  let installDir: string;
  try {
    say(`${profile.name}: installing ${profile.packages.join(' ')}`);
    const inst = await ensureInstalled(profile.name, profile.version, profile.packages, profile.entry);
    install = { ms: inst.ms, bytes: inst.bytes, cached: !inst.installed };
    installDir = inst.dir;
  } catch (err) {
    install = { error: String(err).slice(0, 500) };
    return (opts.rows ?? ['id', 'command']).map((by) => ({ ...base, by, install, cells: {}, logs: '' }));
  }
  const model = await startFakeModel({ slowChunkMs: 200 });
  const results: AgentResult[] = [];
  try {
    for (const by of opts.rows ?? (['id', 'command'] as const)) {
      const logs = join(opts.logRoot, profile.name, by);
      rmSync(logs, { recursive: true, force: true });
      const out: AgentResult = { ...base, by, install, cells: {}, logs };
      const ws = makeWorkspace(`${profile.name}-${by}`);
      const r: RunCtx = { ws, model, installDir, logs, opts, by, say: (l) => say(`${profile.name} by ${by}: ${l}`) };
      try {
        await keyedRun(profile, out, r);
        await keylessRun(profile, out, r);
        r.say('readiness');
        out.cells.readiness = await cell(
          () => readinessScenario(profile, { ws, installDir, modelUrl: model.url, by }),
          [],
        );
        await cliRun(profile, out, r);
      } finally {
        if (!opts.keepWorkspace) rmSync(ws.root, { recursive: true, force: true });
      }
      results.push(out);
    }
  } finally {
    await model.close();
  }
  return results;
}

interface RunCtx {
  ws: Workspace;
  model: FakeModel;
  installDir: string;
  logs: string;
  opts: RunOptions;
  by: By;
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

/** Index of the agent's (last) initialize answer in the recording: a restart answers twice. */
function initializeAnswerAt(proc: AgentProcess): number {
  const ids = new Set(
    proc.rec.frames.filter((f) => f.dir === 'client->agent' && f.msg.method === 'initialize').map((f) => f.msg.id),
  );
  return proc.rec.frames.findLastIndex(
    (f) => f.dir === 'agent->client' && f.msg.method === undefined && ids.has(f.msg.id) && f.msg.result !== undefined,
  );
}

async function keyedRun(profile: AgentProfile, out: AgentResult, r: RunCtx): Promise<void> {
  const { ws, model, installDir, logs, opts, say } = r;
  say('starting (with credentials)');
  const proc = await startAgent(profile, {
    ws,
    installDir,
    modelUrl: model.url,
    credentials: true,
    label: 'keyed',
    by: r.by,
  });
  try {
    const t0 = Date.now();
    let hs: HarnessSession | undefined;
    let session: Session | undefined;
    let openError: unknown;
    try {
      hs = await proc.open();
      session = hs.session;
    } catch (err) {
      openError = err;
    }
    const spawned = proc.spawned();
    const initQuirks = [...detectQuirks(proc.rec.frames).keys()];
    if (!spawned) {
      out.cells.initialize = {
        status: 'broken',
        detail: `initialize failed: ${String(openError).slice(0, 300)}`,
        quirks: initQuirks,
        ms: Date.now() - t0,
      };
      return;
    }
    const ms = spawned.at - t0;
    out.timeToInitializeMs = ms;
    if (spawned.quirks)
      out.quirks = {
        set: spawned.quirks.set,
        why: spawned.quirks.why,
        ...(spawned.quirks.restartedFrom ? { restartedFrom: spawned.quirks.restartedFrom } : {}),
      };
    const initAt = initializeAnswerAt(proc);
    const initAnswer = proc.rec.frames[initAt]?.msg.result as { authMethods?: { id?: string }[] } | undefined;
    const auth = (initAnswer?.authMethods ?? []).map((m) => m.id).join(', ');
    const q = spawned.quirks;
    out.cells.initialize = {
      status: initQuirks.length ? 'quirk' : 'works',
      detail: `${ms} ms; quirk set ${q?.set ?? '?'} (${q?.basis ?? '?'}${q?.restartedFrom ? `, restarted from ${q.restartedFrom}` : ''}); authMethods: ${auth || 'none'}`,
      quirks: initQuirks,
      ms,
    };
    // The fixtures (matrix/fixtures.ts) are cut from these: the last start, then the session's setup.
    const restartAt = proc.rec.frames.findLastIndex(
      (f, i) => i <= initAt && f.dir === 'client->agent' && f.msg.method === 'initialize',
    );
    proc.rec.write(join(logs, 'initialize.ndjson'), Math.max(0, restartAt), initAt + 1);
    proc.rec.write(join(logs, 'session-new.ndjson'), initAt + 1);
    out.cells['session/new'] = session
      ? {
          status: 'works',
          detail: `session ${session.id.slice(0, 12)}…; catalog ${JSON.stringify(Object.keys(session.catalog)).slice(0, 80)}; mode ${session.catalog.mode?.currentId ?? '-'}`,
          quirks: [],
          ms: 0,
        }
      : { status: 'broken', detail: `session/new failed: ${String(openError).slice(0, 300)}`, quirks: [], ms: 0 };
    if (!session || !hs) return;
    if (profile.errorPathsOnly) {
      await errorPathsOnly(out, proc, session, r);
      return;
    }
    const ctx: ScenarioCtx = {
      session,
      proc,
      model,
      ws,
      stallMs: opts.stallMs,
      ...(profile.asksPermission === false ? { asksPermission: false } : {}),
    };
    const steps: [ScenarioName, () => Promise<Check & { firstTokenMs?: number }>][] = [
      ['text', () => textScenario(ctx)],
      ['shell', () => shellScenario(ctx)],
      ['read', () => readScenario(ctx)],
      ['write', () => writeScenario(ctx)],
      ['deny', () => denyScenario(ctx)],
      ['error-400', () => errorScenario(ctx)],
      ['cancel', () => cancelScenario(ctx)],
      // The next turn after a cancel must be a real one (claude-agent-acp answered an empty "done").
      ['after-cancel', () => textScenario(ctx)],
    ];
    for (const [name, fn] of steps) {
      say(name);
      out.cells[name] = await scenario(proc, logs, name, async () => {
        const c = await fn();
        if (c.firstTokenMs !== undefined && out.timeToFirstTokenMs === undefined)
          out.timeToFirstTokenMs = c.firstTokenMs;
        return c;
      });
      if (!proc.alive() && name !== 'after-cancel') say(`the agent process is gone after ${name}`);
    }
    if (profile.steers) {
      say('steer');
      out.cells.steer = await scenario(proc, logs, 'steer', () => steerScenario(ctx));
    } else
      out.cells.steer = na(
        'the agent advertises no _session/steering (steer = cancel and resend: test/host/steer.test.ts)',
      );
    if (profile.continueFromHermes) {
      say('continue');
      out.cells.continue = await scenario(proc, logs, 'continue', () => continueScenario(ctx, proc));
    } else out.cells.continue = na('run for the Claude adapters (issue 14: a Hermes session continued in Claude Code)');
    say('rewind');
    const source = hs;
    out.cells.rewind = await scenario(proc, logs, 'rewind', () => rewindScenario(ctx, source, proc));
  } finally {
    out.stderrTail = proc.stderrTail().slice(-800);
    await proc.close();
    proc.rec.write(join(logs, 'keyed-all.ndjson'));
  }
}

/** Cursor's backend is not on npm: a session and a prompt must fail cleanly, nothing more. */
async function errorPathsOnly(out: AgentResult, proc: AgentProcess, session: Session, r: RunCtx): Promise<void> {
  for (const n of [
    'shell',
    'read',
    'write',
    'deny',
    'cancel',
    'after-cancel',
    'error-400',
    'rewind',
    'steer',
    'continue',
  ] as const)
    out.cells[n] = na();
  const ctx: ScenarioCtx = { session, proc, model: r.model, ws: r.ws, stallMs: r.opts.stallMs };
  out.cells.text = await scenario(proc, r.logs, 'text', async () => {
    const t = await runTurn(ctx, 'Please reply to this matrix text probe.');
    const e = t.result.error;
    if (!e) return { ok: false, detail: `no error: ${t.result.stopReason} ${JSON.stringify(t.text.slice(0, 100))}` };
    return {
      ok: e.code === 'auth_required' || e.code === 'agent_error',
      detail: `${e.code}: ${e.message.slice(0, 160)}`,
    };
  });
}

/** The keyless run: no key anywhere. The outcome must be a readiness gap listing auth methods, or a hang the host's watchdog caught. */
async function keylessRun(profile: AgentProfile, out: AgentResult, r: RunCtx): Promise<void> {
  const { ws, model, installDir, logs, opts, say } = r;
  say('no-credentials');
  const hang = profile.noCredentials === 'hang';
  const proc = await startAgent(profile, {
    ws,
    installDir,
    modelUrl: model.url,
    credentials: false,
    label: 'keyless',
    by: r.by,
    ...(hang ? { stallMs: opts.hangStallMs } : {}),
  });
  let stalled: { silentMs: number } | undefined;
  proc.h.host.subscribe((e) => {
    if (e.type === 'turn.stalled') stalled = e;
  });
  try {
    const frames = hang ? ['silent-hang-caught' as const] : () => [...detectQuirks(proc.rec.frames).keys()];
    out.cells['no-credentials'] = await cell(async () => {
      let session: Session;
      try {
        session = (await proc.open()).session;
      } catch (err) {
        return authGap(err, 'session/new');
      }
      if (hang) {
        // No deadline of our own: the host's watchdog must end this turn.
        const res = await session.prompt('Please reply to this matrix text probe.').result;
        if (!stalled)
          return { ok: false, detail: `the host watchdog did not fire: ${res.stopReason} ${res.error?.message ?? ''}` };
        return {
          ok: true,
          detail: `host stall watchdog: turn.stalled after ${Math.round(stalled.silentMs / 1000)} s of silence, turn ${res.stopReason}${res.error ? ` (${res.error.code})` : ''}`,
        };
      }
      const ctx: ScenarioCtx = { session, proc, model, ws, stallMs: opts.stallMs };
      const t = await runTurn(ctx, 'Please reply to this matrix text probe.');
      if (t.stalled) return { ok: false, detail: `stall watchdog: ${t.stalled}` };
      const e = t.result.error;
      if (!e)
        return {
          ok: false,
          detail: `the turn "worked" without credentials: ${t.result.stopReason} ${JSON.stringify(t.text.slice(0, 100))}`,
        };
      return authGap(e, 'prompt');
    }, frames);
  } finally {
    await proc.close();
    proc.rec.write(join(logs, hang ? 'no-credentials.ndjson' : 'keyless-all.ndjson'));
  }
}

/** A TalariaError from session/new, or a TurnError from a prompt: `auth_required` with its methods listed. */
function authGap(err: unknown, where: string): Check {
  const e = err as { code?: unknown; details?: unknown; data?: unknown; message?: string };
  if (e?.code === 'auth_required') {
    const data = (err instanceof TalariaError ? e.details : e.data) as
      { authMethods?: { id?: string; type?: string }[] } | undefined;
    const methods = (data?.authMethods ?? []).map((m) => `${m.id ?? '?'}${m.type ? `(${m.type})` : ''}`);
    return {
      ok: methods.length > 0,
      detail: `auth_required at ${where}; methods: ${methods.join(', ') || 'NONE LISTED'}`,
    };
  }
  return { ok: false, detail: `at ${where}: ${String(e?.code)} ${String(e?.message ?? err).slice(0, 200)}` };
}

/** `talaria run` as a user types it: shell, a write allowed by --approve edits, one denied by --approve none, a model error. */
async function cliRun(profile: AgentProfile, out: AgentResult, r: RunCtx): Promise<void> {
  if (profile.errorPathsOnly) {
    for (const n of ['cli', 'cli-write', 'cli-deny', 'cli-error'] as const) out.cells[n] = na();
    return;
  }
  const c: CliCtx = { ws: r.ws, model: r.model, installDir: r.installDir, logs: r.logs, by: r.by };
  r.say('cli');
  out.cells.cli = await cell(() => cliShell(profile, c), []);
  r.say('cli-write');
  out.cells['cli-write'] = await cell(() => cliWrite(profile, c, join(r.ws.cwd, 'cli-written.txt')), []);
  r.say('cli-deny');
  out.cells['cli-deny'] = await cell(() => cliDeny(profile, c, join(r.ws.cwd, 'cli-denied.txt')), []);
  r.say('cli-error');
  out.cells['cli-error'] = await cell(() => cliError(profile, c), []);
}
