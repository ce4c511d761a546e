/**
 * `talaria agents`, `doctor` and `probe` say which quirk set applies to each agent and why: the
 * set a built-in id or a command line leads to expect before it runs, and what the agent said in
 * initialize once it did.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

const HERMES = fileURLToPath(new URL('../fakes/hermes/bin/hermes', import.meta.url));
const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

/** Hermes (the emulator) on PATH and configured; two agents of the user's own in config.json. */
function machine() {
  const home = tempDir('user');
  mkdirSync(join(home, '.hermes'));
  writeFileSync(join(home, '.hermes', 'config.yaml'), CONFIG);
  const talaria = join(home, '.talaria');
  mkdirSync(talaria);
  const bin = tempDir('bin');
  // A user's gemini launcher (its name says which agent it is) and a wrapper that says nothing.
  for (const name of ['gemini', 'run-agent.sh']) writeFileSync(join(bin, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(
    join(talaria, 'config.json'),
    JSON.stringify({
      agents: {
        'my-gemini': { command: join(bin, 'gemini'), args: ['--acp'] },
        wrapped: { command: join(bin, 'run-agent.sh') },
      },
    }),
  );
  const env = {
    HOME: home,
    TALARIA_HOME: talaria,
    NO_COLOR: '1',
    PATH: [dirname(HERMES), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  };
  return { cwd: tempDir('ws'), env };
}

describe.concurrent('which quirk set applies, and why', () => {
  it('agents: a QUIRKS column (by id, by command, or at initialize) and the reasons in --json', async () => {
    const m = machine();
    const [table, json] = await Promise.all([runCli(['agents'], m), runCli(['agents', '--json'], m)]);
    expect(table.code).toBe(EXIT.OK);
    expect(table.stdout).toMatch(/AGENT +NAME +STATUS +VERSION +SOURCE +QUIRKS +COMMAND/);
    expect(table.stdout).toMatch(/hermes +Hermes Agent +ready +0\.18\.2 +builtin +hermes-0\.18 \(by id\)/);
    expect(table.stdout).toMatch(/my-gemini +my-gemini +ready +config +gemini-cli \(by command\)/);
    expect(table.stdout).toMatch(/wrapped +wrapped +ready +config +at initialize/);
    const agents = (JSON.parse(json.stdout) as { agents: { providerId: string; quirks?: unknown }[] }).agents;
    const by = (id: string) => agents.find((a) => a.providerId === id)?.quirks;
    expect(by('hermes')).toEqual({
      set: 'hermes-0.18',
      label: 'Hermes Agent 0.18–0.20',
      basis: 'provider',
      why: 'agent "hermes" is expected to be "hermes-agent" 0.18.2 (versions below 0.21.0); confirmed at initialize',
    });
    expect(by('my-gemini')).toMatchObject({ set: 'gemini-cli', basis: 'command' });
    expect(by('wrapped')).toMatchObject({ set: 'generic', basis: 'none' });
  });

  it('doctor: a quirks line under each agent', async () => {
    const m = machine();
    const r = await runCli(['doctor'], m);
    expect(r.stdout).toMatch(
      /✓ hermes +Hermes Agent — ready[^\n]*\n +quirks: Hermes Agent 0\.18–0\.20 — agent "hermes" is expected to be "hermes-agent" 0\.18\.2 \(versions below 0\.21\.0\); confirmed at initialize/,
    );
    expect(r.stdout).toMatch(/wrapped[^\n]*\n +quirks: chosen when it answers initialize/);
  });

  it('probe --agent-cmd: the set from what the agent said', async () => {
    const m = machine();
    const r = await runCli(['probe', '--agent-cmd', `${HERMES} acp`, '--timeout-ms', '60000'], m);
    expect(r.stdout).toContain(
      'quirks: Hermes Agent 0.18–0.20 — the agent named itself "hermes-agent" 0.18.2 (versions below 0.21.0)',
    );
  });
});
