import { describe, it, expect, vi } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { runCli, tempDir } from '../helpers.js';
import { cell, row, type Json } from './table.js';

vi.setConfig({ testTimeout: 90_000 });

/** `talaria probe` end to end against the Hermes emulator (0.18.2 wire behaviour, every quirk). */
const HERMES = fileURLToPath(new URL('../../fakes/hermes/bin/hermes', import.meta.url));

/** A Hermes home configured with a provider (as test/fakes/hermes-emulator.test.ts does). */
function hermesHome(): string {
  const home = join(tempDir('probe-hermes'), 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  return home;
}

const env = () => ({ HERMES_HOME: hermesHome(), TALARIA_HOME: tempDir('probe-talaria-home'), NO_COLOR: '1' });

describe.concurrent('talaria probe --agent-cmd "<emulator> acp"', () => {
  it('reports the quirks: dangling tool calls settled, unannounced permission ids, resume replays; exit 0', async () => {
    const r = await runCli(['probe', '--agent-cmd', `${HERMES} acp`], { cwd: tempDir('probe-cwd'), env: env() });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const out = r.stdout;
    expect(out).toContain('Talaria probe — hermes-agent 0.18.2');
    expect(cell(out, 'capabilities').evidence).toContain(
      'session: list, resume, fork; prompt: text, image; MCP: stdio; auth: custom, hermes-setup',
    );
    expect(cell(out, 'session/new').evidence).toMatch(/legacy models .*legacy modes \(3 options, current default\)/);
    expect(cell(out, 'streamed turn')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('messageId: none'),
    });
    // ≤0.20 never completes read_file / write_file live: the probe sees them dangle, Talaria settles them.
    const tools = cell(out, 'tool calls');
    expect(tools.result).toBe('quirk');
    expect(tools.evidence).toContain(
      '3 calls (read, execute, edit); 1 completed by the agent; 2 left dangling, settled by Talaria at turn end',
    );
    expect(cell(out, 'permissions')).toMatchObject({
      result: 'quirk',
      evidence: expect.stringContaining('matches no announced call (edit-approval-1)'),
    });
    expect(cell(out, 'env reaches the shell')).toMatchObject({
      result: 'works',
      evidence: expect.stringMatching(/marker found in the output of tc-[0-9a-f]{12} "terminal: echo/),
    });
    expect(cell(out, 'MCP server tool')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('"mcp__talaria-probe__probe_echo"'),
    });
    expect(cell(out, 'image prompt').result).toBe('works');
    expect(cell(out, 'cancel')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('stop reason cancelled'),
    });
    expect(cell(out, 'modes')).toMatchObject({
      result: 'supported',
      evidence: expect.stringContaining(
        'via session/set_mode (legacy): set accept_edits, dont_ask; accepted but not confirmed',
      ),
    });
    expect(cell(out, 'list by cwd').result).toBe('works');
    const load = cell(out, 'load (replay)');
    expect(load.result).toBe('quirk');
    expect(load.evidence).toMatch(
      /5\/5 tool calls paired; replay ids differ from the live ids \(call_read_1 vs live tc-/,
    );
    expect(cell(out, 'resume')).toMatchObject({
      result: 'quirk',
      evidence: expect.stringMatching(/^resume replayed \d+ updates .*\(ACP: resume must not replay\)/),
    });
    expect(cell(out, 'wire schema')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('0 violations'),
    });
  });

  it('--json: the dangling ids, the legacy set_model listed as an unknown method, not as a violation', async () => {
    // A big catalog gives the model switch a second model (HERMES_EMU_* never reach an --agent-cmd by themselves).
    const cmd = `env HERMES_EMU_CATALOG=big ${HERMES} acp`;
    const r = await runCli(['probe', '--json', '--agent-cmd', cmd], { cwd: tempDir('probe-cwd'), env: env() });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const report = JSON.parse(r.stdout) as Json;
    expect(report).toMatchObject({
      ready: true,
      steering: 'hermes',
      agent: { name: 'hermes-agent', version: '0.18.2' },
    });
    const tools = row(report, 'tools').data;
    expect(tools.dangling).toHaveLength(2);
    expect(tools.settledByTalaria).toBe(2);
    for (const id of tools.dangling) expect(id).toMatch(/^tc-[0-9a-f]{12}$/);
    // By command it gets Hermes' quirk set, as by id: the set_model is followed by a reload (its MCP servers again).
    expect(report.agent.quirks).toMatchObject({
      set: 'hermes-0.18',
      basis: 'agent',
      why: expect.stringContaining('"hermes-agent" 0.18.2'),
    });
    expect(row(report, 'model')).toMatchObject({
      status: 'supported',
      data: { via: 'session/set_model (legacy)', switches: [{ ok: true }] },
    });
    expect(report.wire.violations).toEqual([]);
    expect(report.wire.unknownMethods).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'session/set_model', reason: 'not_in_schema', check: 'modes' }),
      ]),
    );
    expect(row(report, 'wire').data.unknownMethods).toEqual(['session/set_model (not in the schema)']);
    expect(row(report, 'resume').data.replayed).toBeGreaterThan(0);
    expect(row(report, 'mcp').data).toMatchObject({ started: false, outputReachedAgent: false });
  });

  it('--agent hermes resolves through the provider registry; a Hermes that is not installed is not ready (exit 6)', async () => {
    const found = await runCli(['probe', '--json', '--agent', 'hermes'], {
      cwd: tempDir('probe-cwd'),
      env: { ...env(), PATH: `${dirname(HERMES)}:${process.env.PATH ?? ''}` },
    });
    expect(found.code, found.stderr).toBe(EXIT.OK);
    const report = JSON.parse(found.stdout) as Json;
    expect(report.agent).toMatchObject({
      label: 'Hermes Agent',
      command: HERMES,
      args: ['acp', '--accept-hooks'],
      name: 'hermes-agent',
    });
    expect(row(report, 'tools').status).toBe('quirk');
    const missing = await runCli(['probe', '--agent', 'hermes'], {
      cwd: tempDir('probe-cwd'),
      env: { ...env(), PATH: '/nonexistent/bin' },
    });
    expect(missing.code).toBe(EXIT.NOT_READY);
    expect(missing.stderr).toContain('talaria probe: not ready: Hermes Agent was not found');
    expect(missing.stdout).toBe('');
  });
});
