/**
 * The warm pool (issue 16): time from "new session" to the first streamed token against the same
 * prompt on a session already open, through the library, with the Hermes emulator as slow as real
 * Hermes 0.18.2 (its cold-start medians, a later session/new of ~0.9 s, and a model that takes
 * `TURN_DELAY_MS` to its first token). The process is warm (its first prompt done) before timing:
 * what is measured is what a user feels opening a second chat. Pairs alternate; each pair waits
 * for the next spare, as a user typing their first message would.
 * Also measured without the pool (`warm: false`) for comparison.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHarness } from '../src/harness/index.js';
import type { HarnessSession, Workspace } from '../src/harness/index.js';
import { currentEnv } from '../src/providers/locate.js';
import { ROOT } from './flood-driver.js';
import type { Measurement } from './types.js';

const HERMES_BIN_DIR = join(ROOT, 'test/fakes/hermes/bin');
const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';
/** Real Hermes' later plain turns take 0.2–0.6 s to answer. */
const TURN_DELAY_MS = 300;

/** ms from `start` to the first assistant text of `s`'s turn for `text`. */
async function firstToken(s: HarnessSession, text: string, start: number): Promise<number> {
  let at = 0;
  const off = s.subscribe((e) => {
    if (!at && (e.type === 'entry.added' || e.type === 'entry.updated') && e.entry.kind === 'assistant_message')
      at = performance.now();
  });
  try {
    await s.prompt(text).result;
  } finally {
    off();
  }
  if (!at) throw new Error('the turn streamed no assistant text');
  return at - start;
}

async function measure(warm: boolean, pairs: number): Promise<{ openMs: number[]; newMs: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-warm-'));
  const hermesHome = join(dir, 'hermes');
  const ws = join(dir, 'ws');
  for (const d of [hermesHome, ws]) mkdirSync(d, { recursive: true });
  writeFileSync(join(hermesHome, 'config.yaml'), CONFIG);
  // The emulator's knobs reach it the way a user's env for an agent would (config.json).
  mkdirSync(join(dir, 'home'), { recursive: true });
  const knobs = { HERMES_EMU_COLD: 'real', HERMES_EMU_TURN_DELAY_MS: String(TURN_DELAY_MS) };
  writeFileSync(join(dir, 'home', 'config.json'), JSON.stringify({ agents: { hermes: { env: knobs } } }));
  const env = currentEnv({
    env: {
      PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: dir,
      TALARIA_HOME: join(dir, 'home'),
      HERMES_HOME: hermesHome,
    },
    homeDir: dir,
  });
  const h = createHarness({ env, warm, host: { terminateGraceMs: 500 } });
  try {
    const w: Workspace = h.workspaces.open(ws);
    const open = await w.newSession({ provider: 'hermes' });
    await open.prompt('warm up').result; // the process's first model call (its cold start) is not what is measured
    const openMs: number[] = [];
    const newMs: number[] = [];
    for (let i = 0; i < pairs; i++) {
      openMs.push(await firstToken(open, `hello ${i}`, performance.now()));
      await w.warm({ provider: 'hermes' }); // the next spare is ready (the user is still typing)
      const t0 = performance.now();
      const s = await w.newSession({ provider: 'hermes' });
      newMs.push(await firstToken(s, `hello new ${i}`, t0));
      await s.close();
    }
    return { openMs, newMs };
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runWarmNewSession(pairs: number): Promise<Measurement> {
  const on = await measure(true, pairs);
  const off = await measure(false, Math.max(1, Math.ceil(pairs / 2)));
  const openMs = median(on.openMs);
  const newMs = median(on.newMs);
  return {
    values: {
      newMs,
      openMs,
      ratio: newMs / openMs,
      coldNewMs: median(off.newMs),
      coldOpenMs: median(off.openMs),
    },
    notes: [
      `warm pool: new session → first token ${on.newMs.map((x) => x.toFixed(0)).join(', ')} ms; open session ${on.openMs.map((x) => x.toFixed(0)).join(', ')} ms`,
    ],
  };
}
