import { describe, it, expect, vi } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../src/cli/exit-codes.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 60_000) });

/** `talaria doctor` and `talaria agents` through real processes, on a machine with and without Hermes. */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

/** No agent on PATH (node and the basics only), a fresh HOME and Talaria home; Hermes' emulator when asked. */
function machine(o: { hermes?: 'configured' | 'unconfigured' } = {}) {
  // Without Hermes there is no Hermes home either.
  const hermesHome = o.hermes ? tempDir('hermes-home') : join(tempDir('no-hermes'), 'absent');
  if (o.hermes === 'configured') writeFileSync(join(hermesHome, 'config.yaml'), CONFIG);
  const path = [...(o.hermes ? [HERMES_BIN_DIR] : []), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
  const env = { ...demoEnv(tempDir('demo')), PATH: path, HOME: tempDir('user'), HERMES_HOME: hermesHome };
  return { cwd: tempDir('ws'), env, hermesHome };
}

describe.concurrent('talaria doctor without Hermes', () => {
  it('lists every agent with its install fix; the demo is chosen and ready (0); asking for hermes is not ready (6)', async () => {
    const m = machine();
    const [plain, hermes, run] = await Promise.all([
      runCli(['doctor'], m),
      runCli(['doctor', '--agent', 'hermes'], m),
      runCli(['run', '--agent', 'hermes', 'hi'], m),
    ]);
    expect(plain.code).toBe(EXIT.OK);
    expect(plain.stdout).toContain('✗ hermes       Hermes Agent — not installed');
    expect(plain.stdout).toMatch(
      /Hermes Agent is not installed \(looked in: PATH, .*\)\.\n\s+fix: Install Hermes Agent \(https:\/\/github\.com\/NousResearch\/hermes-agent\)/,
    );
    expect(plain.stdout).toContain(
      'fix: Install the Claude Code ACP adapter: `npm install -g @zed-industries/claude-agent-acp`.',
    );
    expect(plain.stdout).toMatch(/✓ demo +Demo agent — ready .*← chosen/);
    expect(plain.stdout).toContain('Hermes profiles\n  none found (hermes was not found)');
    expect(plain.stdout).toContain('demo — no agent is ready, so Talaria falls back to its demo agent\n  ready');
    // What to run next: the server first (npm start runs it), then the terminal face.
    expect(plain.stdout).toMatch(
      /\nStart\n {2}talaria serve +the web UI and API on 127\.0\.0\.1; prints a link .*`npm start` in a checkout runs it\n {2}talaria chat +/,
    );
    expect(hermes.code).toBe(EXIT.NOT_READY);
    expect(hermes.stdout).toMatch(/hermes — asked for with --agent\n  not ready: Install Hermes Agent/);
    expect(run.code).toBe(EXIT.NOT_READY);
    expect(run.stderr).toContain('Hermes Agent was not found. Install Hermes Agent');
  });

  it('--json, an unknown agent (2), and `agents` as a table and JSON', async () => {
    const m = machine();
    const [json, unknown, table, agents] = await Promise.all([
      runCli(['doctor', '--json'], m),
      runCli(['doctor', '--agent', 'nope'], m),
      runCli(['agents'], m),
      runCli(['agents', '--json'], m),
    ]);
    const d = JSON.parse(json.stdout) as {
      chosen: unknown;
      agents: { providerId: string; ready: boolean; gaps: { fix: string }[] }[];
    };
    expect(d.chosen).toEqual({ provider: 'demo', from: 'fallback', ready: true });
    expect(d.agents.find((a) => a.providerId === 'hermes')).toMatchObject({
      ready: false,
      gaps: [expect.objectContaining({ fix: expect.stringContaining('Install Hermes Agent') })],
    });
    expect(unknown.code).toBe(EXIT.USAGE);
    expect(unknown.stderr).toContain("unknown agent 'nope'");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ {2}AGENT +NAME +STATUS/);
    expect(table.stdout).toMatch(/✗ hermes +Hermes Agent +not installed/);
    expect(table.stdout).toMatch(/✓ demo +Demo agent +ready/);
    const a = JSON.parse(agents.stdout) as { agents: { providerId: string; ready: boolean }[] };
    expect(a.agents.map((x) => x.providerId)).toEqual([
      'hermes',
      'claude-code',
      'codex',
      'gemini',
      'opencode',
      'kimi',
      'qwen',
      'copilot',
      'kilo',
      'pi',
      'cursor',
      'demo',
    ]);
  });
});

describe.concurrent('talaria doctor with the Hermes emulator', () => {
  it('configured: Hermes is ready and chosen (0); its profiles and a config trap are shown', async () => {
    const m = machine({ hermes: 'configured' });
    // A second profile with a known trap in its config.yaml.
    mkdirSync(join(m.hermesHome, 'profiles', 'work'), { recursive: true });
    writeFileSync(
      join(m.hermesHome, 'profiles', 'work', 'config.yaml'),
      'model:\n  default: gpt-oss\n  provider: ollama-cloud\n',
    );
    const r = await runCli(['doctor'], m);
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toMatch(/✓ hermes +Hermes Agent — ready · v0\.18\.2 · PATH: .*hermes {2}← chosen/);
    expect(r.stdout).toMatch(/◆ default +\S+ +active · model fake-model/);
    expect(r.stdout).toMatch(/ {3}work +\S+profiles\/work/);
    expect(r.stdout).toMatch(
      /! Hermes profile work \(.*config\.yaml line 3\): `provider: ollama-cloud` takes its key only from OLLAMA_API_KEY/,
    );
    expect(r.stdout).toMatch(/fix: Add `OLLAMA_API_KEY=…` to \S+profiles\/work\/\.env/);
    expect(r.stdout).toContain('hermes — the best ready agent\n  ready');
  });

  it('unconfigured: the fix is `hermes setup`; hermes asked for is not ready (6), the default falls back to the demo (0)', async () => {
    const m = machine({ hermes: 'unconfigured' });
    const [asked, dflt] = await Promise.all([runCli(['doctor', '--agent', 'hermes'], m), runCli(['doctor'], m)]);
    expect(asked.code).toBe(EXIT.NOT_READY);
    expect(asked.stdout).toMatch(/! hermes +Hermes Agent — needs setup · v0\.18\.2/);
    expect(asked.stdout).toContain('Hermes is not configured: No LLM provider configured.');
    expect(asked.stdout).toContain('fix: Run `hermes setup` to pick a model and add a key.');
    expect(asked.stdout).toContain('not ready: Run `hermes setup` to pick a model and add a key.');
    expect(dflt.code).toBe(EXIT.OK);
    expect(dflt.stdout).toContain('demo — no agent is ready');
  });
});

describe.concurrent('`talaria` with no command (npm start): chat with the best ready agent', () => {
  it('nothing ready: the demo agent, with progress and a clear banner', async () => {
    const m = machine();
    const r = await runCli([], { ...m, input: 'hello\n/quit\n' });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toMatch(
      /Looking for a ready agent…\nStarting Demo agent…\nOpening a session on Talaria demo agent[^\n]*…\nConnected to Talaria demo agent/,
    );
    expect(r.stderr).toContain('Using the Talaria demo agent (offline, scripted) — install Hermes or pass --agent-cmd');
    expect(r.stdout).toContain('You said: "hello"');
  });

  it('Hermes ready (emulator): Hermes, no banner', async () => {
    const m = machine({ hermes: 'configured' });
    const r = await runCli([], { ...m, input: 'hello\n/quit\n' });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toMatch(
      /Starting Hermes Agent…\nOpening a session on hermes-agent 0\.18\.2…\nConnected to hermes-agent 0\.18\.2/,
    );
    expect(r.stderr).not.toContain('demo agent');
    expect(r.stdout).toContain('Hello from the fake model! You said: hello');
  });
});

describe.concurrent('--profile', () => {
  it('runs Hermes with -p NAME; the stored session keeps its profile and continues with it', async () => {
    const m = machine({ hermes: 'configured' });
    mkdirSync(join(m.hermesHome, 'profiles', 'work'), { recursive: true });
    writeFileSync(join(m.hermesHome, 'profiles', 'work', 'config.yaml'), CONFIG.replace('fake-model', 'work-model'));
    const r = await runCli(['run', '--json', '--agent', 'hermes', '--profile', 'work', 'hi'], m);
    expect(r.code).toBe(0);
    const list = await runCli(['sessions', 'list', '--store-only'], m);
    expect(list.stdout).toMatch(/ hermes:work /);
    const id = /^([0-9a-f-]{36}) /m.exec(list.stdout)![1]!;
    const again = await runCli(['run', '--json', '--session', id, 'again'], m);
    expect(JSON.parse(again.stdout)).toMatchObject({
      stopReason: 'end_turn',
      sessionId: (JSON.parse(r.stdout) as { sessionId: string }).sessionId,
    });
    const missing = await runCli(['run', '--agent', 'hermes', '--profile', 'nope', 'hi'], m);
    expect(missing.code).toBe(EXIT.NOT_READY);
  });
});

describe('readiness messages quote what went wrong', () => {
  it('a Hermes whose Python crashes: the exception line, not "Traceback (most recent call last):"', async () => {
    const bin = tempDir('crashing-hermes');
    const script = [
      '#!/bin/sh',
      'echo "Traceback (most recent call last):" >&2',
      'echo \'  File "/opt/hermes/bin/hermes", line 5, in <module>\' >&2',
      'echo "    import yaml" >&2',
      'echo "ModuleNotFoundError: No module named \'yaml\'" >&2',
      'exit 1',
    ].join('\n');
    writeFileSync(join(bin, 'hermes'), `${script}\n`, { mode: 0o755 });
    const m = machine();
    const r = await runCli(['doctor', '--agent', 'hermes'], { ...m, env: { ...m.env, PATH: `${bin}:${m.env.PATH}` } });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stdout).toContain("`hermes --version` failed: ModuleNotFoundError: No module named 'yaml'.");
    expect(r.stdout).not.toContain('failed: Traceback');
  });
});
