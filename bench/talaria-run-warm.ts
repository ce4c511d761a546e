/**
 * `talaria run` on a warm server (issue 16): the whole command as a person feels it (spawn of the
 * built `bin/talaria.js run --agent hermes PROMPT` to its exit, with a `talaria serve` running on
 * the same home) against the same prompt from the library (new session from the warm pool →
 * turn ended, in a process already warm). Both with the Hermes emulator as slow as real Hermes
 * (talaria-warm.ts's knobs: cold start, session/new, a model that takes TURN_DELAY_MS). Pairs
 * alternate (CLI, then library) and each is one sample; the figure is the median per-pair ratio.
 * One local run (`--no-server`, the agent's cold start paid again) is measured for comparison.
 * Each pair also times `node -e 0`, spawned the same way: what any command pays before its first
 * line runs, which no library call pays (the overNodeRatio row leaves it out). Odd pairs run the
 * command with no `--agent` (what people type: the server picks the agent) for the plain rows.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createHarness } from '../src/harness/index.js';
import { readDiscovery } from '../src/cli/server-discovery.js';
import { currentEnv } from '../src/providers/locate.js';
import { ROOT } from './flood-driver.js';
import { ensureFreshBuild } from './talaria-cli.js';
import type { Sample } from './types.js';

const run = promisify(execFile);
const HERMES_BIN_DIR = join(ROOT, 'test/fakes/hermes/bin');
const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';
/** Real Hermes' later plain turns take 0.2–0.6 s to answer (as in talaria-warm.ts). */
const TURN_DELAY_MS = 300;

/** A Talaria home whose Hermes gets the emulator's knobs the way a user's env for an agent would (config.json). */
function home(dir: string, name: string): string {
  const h = join(dir, name);
  mkdirSync(h, { recursive: true });
  const knobs = { HERMES_EMU_COLD: 'real', HERMES_EMU_TURN_DELAY_MS: String(TURN_DELAY_MS) };
  writeFileSync(join(h, 'config.json'), JSON.stringify({ agents: { hermes: { env: knobs } } }));
  return h;
}

async function until(pred: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`run-warm: ${what} not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function runRunOnWarmServer(pairs: number, root = ROOT): Promise<{ samples: Sample[] }> {
  const built = await ensureFreshBuild(root);
  const bin = join(root, 'bin/talaria.js');
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-runwarm-'));
  const hermesHome = join(dir, 'hermes');
  const ws = join(dir, 'ws');
  for (const d of [hermesHome, ws]) mkdirSync(d, { recursive: true });
  writeFileSync(join(hermesHome, 'config.yaml'), CONFIG);
  const base = {
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: dir,
    HERMES_HOME: hermesHome,
    NO_COLOR: '1',
  };
  // Two homes: the server's store and the library's are not shared, so neither waits on the other's writes.
  const cliEnv = { ...base, TALARIA_HOME: home(dir, 'cli-home') };
  const libEnv = { ...base, TALARIA_HOME: home(dir, 'lib-home') };

  const serve = spawn(process.execPath, [bin, 'serve', '--grace', '0'], {
    cwd: ws,
    env: cliEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let serveErr = '';
  serve.stderr.setEncoding('utf8').on('data', (c: string) => (serveErr += c.slice(0, 4000)));
  const h = createHarness({
    env: currentEnv({ env: libEnv, homeDir: dir }),
    warm: true,
    host: { terminateGraceMs: 500 },
  });
  // `--agent hermes`, or (plain) no agent named: what people type, where the server picks the agent.
  const cli = async (args: string[], plain = false) => {
    const t0 = performance.now();
    await run(process.execPath, [bin, 'run', ...(plain ? [] : ['--agent', 'hermes']), ...args], {
      cwd: ws,
      env: cliEnv,
      maxBuffer: 16 * 1024 * 1024,
    });
    return performance.now() - t0;
  };
  // The floor of any command: a Node process that does nothing, spawned the same way in each pair.
  const node = async () => {
    const t0 = performance.now();
    await run(process.execPath, ['-e', '0'], { cwd: ws, env: cliEnv });
    return performance.now() - t0;
  };
  try {
    await until(
      () => readDiscovery(cliEnv.TALARIA_HOME) !== undefined || serve.exitCode !== null,
      'serve.json',
      120_000,
    );
    if (serve.exitCode !== null) throw new Error(`talaria serve exited: ${serveErr}`);
    // Both sides warm before timing: each process's first model call (its cold start) is not what is measured.
    const w = h.workspaces.open(ws);
    const first = await w.newSession({ provider: 'hermes' });
    await first.prompt('warm up').result;
    await first.close();
    await cli(['warm up']);
    const local = await cli(['--no-server', 'hello local']);
    const samples: Sample[] = [];
    await w.warm({ provider: 'hermes' });
    for (let i = 0; i < pairs; i++) {
      const nodeMs = await node();
      // Odd pairs run it as people type it, with no agent named: the server picks one (Hermes).
      const plain = i % 2 === 1;
      const cliMs = await cli([`hello ${i}`], plain);
      const t0 = performance.now();
      const s = await w.newSession({ provider: 'hermes' });
      await s.prompt(`hello ${i}`).result;
      const libMs = performance.now() - t0;
      await s.close();
      // Both sides' next spares are made after a turn ends (warm-pool.ts). The library's is awaited
      // here (the user is still typing); the server's began when the CLI's turn ended, earlier, so it
      // is ready by now as well: neither sample waits for a spare the other side got for free.
      await w.warm({ provider: 'hermes' });
      const notes =
        i === 0
          ? [`one local run (--no-server, the agent's cold start): ${local.toFixed(0)} ms`, ...(built ? [built] : [])]
          : undefined;
      const values: Record<string, number> = plain
        ? { plainMs: cliMs, libMs, plainRatio: cliMs / libMs, nodeMs, localMs: local }
        : { cliMs, libMs, ratio: cliMs / libMs, nodeMs, overNodeRatio: (cliMs - nodeMs) / libMs, localMs: local };
      samples.push({ values, ...(notes ? { notes } : {}) });
    }
    return { samples };
  } finally {
    serve.kill('SIGINT');
    await new Promise((r) => (serve.exitCode !== null ? r(undefined) : serve.once('close', r)));
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
