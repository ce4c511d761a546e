import { describe, it, expect, vi } from 'vitest';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { PROBE_EXIT_BROKEN } from '../../../src/cli/commands/probe.js';
import { demoEnv, runCli, tempDir } from '../helpers.js';
import { cell, row, type Json } from './table.js';

// Each run spawns the CLI and the demo agent; the machine may be busy.
vi.setConfig({ testTimeout: 90_000 });

/** `talaria probe` end to end against the bundled demo agent (real CLI, real agent process). */
function env() {
  return { ...demoEnv(tempDir('probe-demo-home')), TALARIA_HOME: tempDir('probe-talaria-home') };
}

describe.concurrent('talaria probe --agent demo', () => {
  it('prints the table: streaming, tools, cancel, load work; nothing broken; exit 0', async () => {
    const r = await runCli(['probe', '--agent', 'demo'], { cwd: tempDir('probe-cwd'), env: env() });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const out = r.stdout;
    expect(out).toContain('Talaria probe — Talaria demo agent (offline, scripted)');
    expect(cell(out, 'initialize')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('protocol 1; talaria-demo'),
    });
    expect(cell(out, 'capabilities')).toMatchObject({
      result: 'supported',
      evidence: expect.stringContaining('load yes; session: list, close'),
    });
    expect(cell(out, 'session/new').evidence).toMatch(/configOptions "model".*configOptions "mode"/);
    const stream = cell(out, 'streamed turn');
    expect(stream.result).toBe('works');
    expect(stream.evidence).toMatch(
      /first frame \d+ ms; \d+ chunks; .*median gap \d+(\.\d+)? ms; messageId: all; stop end_turn/,
    );
    expect(cell(out, 'tool calls')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('3 calls (read, edit, execute); 3 completed by the agent'),
    });
    expect(cell(out, 'permissions')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('2 requests, each naming an announced tool call'),
    });
    expect(cell(out, 'env reaches the shell')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('marker found in the output of'),
    });
    expect(cell(out, 'MCP server tool').result).toBe('not testable');
    expect(cell(out, 'image prompt').result).toBe('works');
    const cancel = cell(out, 'cancel');
    expect(cancel.result).toBe('works');
    expect(cancel.evidence).toMatch(/stop reason cancelled; stopped in \d+ ms; .*text kept: [1-9]\d* chars/);
    expect(cell(out, 'modes')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('set auto, each confirmed current by the agent; restored ask'),
    });
    expect(cell(out, 'model switch')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('set demo-thorough'),
    });
    expect(cell(out, 'list by cwd')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('the other folder lists 0 sessions'),
    });
    const load = cell(out, 'load (replay)');
    expect(load.result).toBe('works');
    expect(load.evidence).toMatch(/replayed \d+ updates .*5\/5 tool calls paired; ids match the live ones/);
    expect(cell(out, 'resume').result).toBe('unsupported');
    expect(cell(out, 'wire schema')).toMatchObject({
      result: 'works',
      evidence: expect.stringMatching(/^\d+ frames checked; 0 violations; 0 non-JSON-RPC stdout lines/),
    });
    expect(out).not.toContain('BROKEN');
    // The evidence section shows the frames behind the rows.
    expect(out).toMatch(/\nEvidence\n/);
    expect(out).toMatch(/→ \d+ms session\/cancel \{"sessionId"/);
  });

  it('--json prints the full report with measurements and no wire violations', async () => {
    const r = await runCli(['probe', '--json'], { cwd: tempDir('probe-cwd'), env: env() });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const report = JSON.parse(r.stdout) as Json;
    expect(report).toMatchObject({ v: 1, ready: true, exitCode: 0, steering: 'demo', agent: { name: 'talaria-demo' } });
    expect(report.counts.broken).toBe(0);
    expect(report.wire.violations).toEqual([]);
    expect(report.wire.protocolErrors).toEqual([]);
    expect(report.wire.stats.frames).toBeGreaterThan(50);
    expect(report.wire.stats.unanswered).toBe(0);
    expect(row(report, 'stream').data).toMatchObject({ messageId: 'all', stopReason: 'end_turn' });
    expect(row(report, 'stream').data.chunks).toBeGreaterThan(1);
    expect(row(report, 'cancel').data).toMatchObject({ stopReason: 'cancelled' });
    expect(row(report, 'tools').data.dangling).toEqual([]);
    expect(row(report, 'load').data.idsMatchLive).toBe(5);
    expect(row(report, 'load').data.firstPromptReplayed).toBe(true);
    // Every row carries its evidence; the JSON has all rows in order.
    expect(report.checks.map((c: Json) => c.id)).toEqual([
      'initialize',
      'capabilities',
      'session_new',
      'stream',
      'tools',
      'permissions',
      'env',
      'mcp',
      'image',
      'cancel',
      'modes',
      'model',
      'list',
      'load',
      'resume',
      'wire',
    ]);
    // The scratch workspace is gone afterwards.
    const { existsSync } = await import('node:fs');
    expect(existsSync(report.cwd)).toBe(false);
  });

  it('bad usage is exit 2 with one line; --help documents the exit codes', async () => {
    const cwd = tempDir('probe-cwd');
    const bad = await runCli(['probe', '--timeout-ms', 'soon'], { cwd, env: env() });
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toContain('--timeout-ms must be a positive whole number');
    const unknown = await runCli(['probe', '--agent', 'no-such-agent'], { cwd, env: env() });
    expect(unknown.code).toBe(EXIT.USAGE);
    expect(unknown.stderr).toMatch(/unknown agent 'no-such-agent' \(known: .*demo/);
    const both = await runCli(['probe', '--agent', 'demo', '--agent-cmd', 'x'], { cwd, env: env() });
    expect(both.code).toBe(EXIT.USAGE);
    const help = await runCli(['probe', '--help'], { cwd, env: env() });
    expect(help.code).toBe(EXIT.OK);
    expect(help.stdout).toContain(`${PROBE_EXIT_BROKEN} at least one check broken`);
  });
});
