/**
 * `talaria probe --agent-cmd "talaria acp …"`: the probe sees Talaria as the agent. For the demo
 * agent and the Hermes emulator every check works (what the probe reports as Hermes quirks when
 * it drives the emulator directly — dangling tool calls, unannounced permission ids, replay ids,
 * resume replaying — is fixed by Talaria), and every frame is schema-valid.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { cell, type Json } from '../cli/probe/table.js';
import { HERMES, editorEnv, talariaAcpCommand } from './helpers.js';

vi.setConfig({ testTimeout: 180_000 });

const CHECKS = [
  'initialize',
  'session_new',
  'stream',
  'tools',
  'permissions',
  'env',
  'image',
  'cancel',
  'modes',
  'model',
  'list',
  'load',
  'resume',
  'wire',
];

describe.concurrent('talaria probe through talaria acp', () => {
  it('the demo agent: every check works', async () => {
    const { env } = editorEnv();
    const r = await runCli(
      ['probe', '--json', '--agent-cmd', talariaAcpCommand(`${env.TALARIA_HOME}-inner`, '--agent demo')],
      { cwd: tempDir('acp-probe'), env },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Json;
    expect(report).toMatchObject({ ready: true, steering: 'demo', agent: { name: 'talaria' } });
    const results = Object.fromEntries((report.checks as Json[]).map((c) => [c.id, c.status]));
    expect(Object.keys(results).length).toBeGreaterThanOrEqual(14);
    for (const id of CHECKS.filter((c) => c in results)) expect([id, results[id]]).toEqual([id, 'works']);
    expect(Object.values(results)).not.toContain('broken');
    expect(Object.values(results)).not.toContain('quirk');
  });

  it('the Hermes emulator: the quirks the probe finds directly are fixed by Talaria', async () => {
    const { env } = editorEnv();
    const inner = `--agent-cmd 'env HERMES_HOME=${env.HERMES_HOME} ${HERMES} acp'`;
    const r = await runCli(['probe', '--agent-cmd', talariaAcpCommand(`${env.TALARIA_HOME}-inner`, inner)], {
      cwd: tempDir('acp-probe'),
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('prompts: hermes');
    expect(cell(r.stdout, 'tool calls')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('3 calls (read, execute, edit); 3 completed'),
    });
    expect(cell(r.stdout, 'permissions')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('each naming an announced tool call'),
    });
    expect(cell(r.stdout, 'load (replay)').result).toBe('works');
    expect(cell(r.stdout, 'resume')).toMatchObject({ result: 'works', evidence: 'resumed without replaying history' });
    expect(cell(r.stdout, 'streamed turn').evidence).toContain('messageId: all');
    expect(cell(r.stdout, 'wire schema')).toMatchObject({
      result: 'works',
      evidence: expect.stringContaining('0 violations'),
    });
    expect(r.stdout).not.toMatch(/\bquirk\b.*·|BROKEN/);
  });
});
