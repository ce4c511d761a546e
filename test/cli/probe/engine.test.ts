import { describe, it, expect, vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { probeExitCode, PROBE_EXIT_BROKEN } from '../../../src/cli/commands/probe.js';
import { runProbe } from '../../../src/cli/probe/engine.js';
import { resolveProbeLaunch } from '../../../src/cli/probe/launch.js';
import type { CheckResult, ProbeLaunch, ProbeReport } from '../../../src/cli/probe/types.js';
import { tempDir } from '../helpers.js';
import { nodeArgs } from '../../prebuilt.js';

vi.setConfig({ testTimeout: 60_000 });

/** The probe engine in-process against the fault executables (test/fakes/bin): real processes, real pipes. */
function fake(name: string): ProbeLaunch {
  const file = fileURLToPath(new URL(`../../fakes/bin/${name}.ts`, import.meta.url));
  return { label: name, command: process.execPath, args: nodeArgs(file), env: {}, inherit: [] };
}

const check = (r: ProbeReport, id: string): CheckResult => {
  const c = r.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id} row`);
  return c;
};

// Limits leave room for a TypeScript fake's start-up on a loaded machine (tsx): initialize must make it.
describe.concurrent('runProbe against fault executables', () => {
  it('hang: initialize answered, session/new never → not ready with a clear message, the rest skipped', async () => {
    const r = await runProbe({ launch: fake('hang'), timeoutMs: 4000, parentDir: tempDir('probe-engine') });
    expect(r.ready).toBe(false);
    expect(r.notReady).toBe('session/new did not answer within 4000 ms');
    expect(check(r, 'initialize').status).toBe('works');
    expect(check(r, 'session_new')).toMatchObject({
      status: 'broken',
      summary: 'session/new did not answer within 4000 ms',
    });
    expect(check(r, 'stream')).toMatchObject({ status: 'skipped', summary: 'the agent is not ready' });
    expect(check(r, 'wire').status).toBe('works');
    expect(probeExitCode(r)).toBe(EXIT.NOT_READY);
    expect(existsSync(r.cwd)).toBe(false);
  });

  it('exit-during-initialize: not ready, with the exit code and the stderr tail', async () => {
    const r = await runProbe({ launch: fake('exit-during-initialize'), timeoutMs: 10_000 });
    expect(r.ready).toBe(false);
    expect(r.notReady).toMatch(/could not be started or initialized/);
    expect(r.notReady).toContain('fatal: config.yaml is invalid (line 3)');
    expect(check(r, 'initialize').status).toBe('broken');
    expect(check(r, 'capabilities').status).toBe('skipped');
    expect(probeExitCode(r)).toBe(EXIT.NOT_READY);
  });

  it('garbage-stdout: protocol errors reported, the probe carries on through every check', async () => {
    const r = await runProbe({ launch: fake('garbage-stdout'), timeoutMs: 4000 });
    expect(r.ready).toBe(true);
    expect(check(r, 'stream')).toMatchObject({
      status: 'works',
      data: expect.objectContaining({ chunks: 2, text: 'still alive' }),
    });
    // Lines that are not JSON-RPC are listed with the check they came in, and fail the wire row.
    expect(r.wire.protocolErrors.length).toBeGreaterThan(10);
    expect(r.wire.protocolErrors).toEqual(
      expect.arrayContaining([{ kind: 'non_json', preview: 'this is not json', check: 'stream' }]),
    );
    expect(check(r, 'wire')).toMatchObject({
      status: 'broken',
      summary: expect.stringMatching(/\d+ non-JSON-RPC stdout lines/),
    });
    // The valid `_garbage/ping` extension notification is listed, not failed.
    expect(r.wire.unknownMethods).toEqual(
      expect.arrayContaining([expect.objectContaining({ method: '_garbage/ping', reason: 'extension' })]),
    );
    // Later checks still ran: advertised load and list never answer → broken, each after its own limit.
    expect(check(r, 'image').status).toBe('works');
    expect(check(r, 'load')).toMatchObject({
      status: 'broken',
      summary: expect.stringContaining('session/load failed'),
    });
    expect(check(r, 'list').status).toBe('broken');
    expect(check(r, 'tools').status).toBe('not_testable');
    // Its turn ends at once: before the cancel went out, or (a split read) crossing it.
    expect(check(r, 'cancel')).toMatchObject({
      status: 'not_testable',
      summary: expect.stringMatching(/before the cancel went out|may have crossed the cancel/),
    });
    expect(probeExitCode(r)).toBe(PROBE_EXIT_BROKEN);
  });

  it('cancel-ignorer: an end_turn that crosses the cancel is not judged; one long after it is broken', async () => {
    const withTail = (ms: number): ProbeLaunch => {
      const l = fake('cancel-ignorer');
      return { ...l, args: [...l.args, String(ms)] };
    };
    const crossing = await runProbe({ launch: withTail(0), timeoutMs: 10_000 });
    expect(check(crossing, 'cancel')).toMatchObject({
      status: 'not_testable',
      summary: expect.stringContaining('may have crossed the cancel'),
    });
    const ignoring = await runProbe({ launch: withTail(600), timeoutMs: 10_000 });
    expect(check(ignoring, 'cancel')).toMatchObject({
      status: 'broken',
      summary: expect.stringMatching(/^answered end_turn after session\/cancel \(ACP: cancelled\)/),
    });
    expect(check(ignoring, 'cancel').data).toMatchObject({
      stopMs: expect.any(Number),
      updatesAfterCancel: expect.any(Number),
    });
    expect((check(ignoring, 'cancel').data as { stopMs: number }).stopMs).toBeGreaterThan(100);
  });

  it('crash-mid-turn: the turn is broken with the crash, every later check skipped', async () => {
    const r = await runProbe({ launch: fake('crash-mid-turn'), timeoutMs: 10_000 });
    expect(r.ready).toBe(true);
    expect(check(r, 'stream')).toMatchObject({ status: 'broken', summary: expect.stringMatching(/^agent_crashed: /) });
    for (const id of ['tools', 'permissions', 'cancel', 'load', 'resume']) {
      expect(check(r, id)).toMatchObject({
        status: 'skipped',
        summary: expect.stringContaining('the agent connection closed'),
      });
    }
    expect(probeExitCode(r)).toBe(PROBE_EXIT_BROKEN);
  });

  it('mcp-reject-agent: session/new refusing the stdio MCP server is broken; the session opens without it', async () => {
    const r = await runProbe({ launch: fake('mcp-reject-agent'), timeoutMs: 10_000 });
    expect(r.ready).toBe(true);
    expect(check(r, 'session_new')).toMatchObject({
      status: 'works',
      summary: expect.stringContaining('refused the MCP server, opened without it'),
    });
    expect(check(r, 'mcp')).toMatchObject({
      status: 'broken',
      summary: expect.stringContaining('MCP server talaria-probe failed to start'),
    });
    expect(check(r, 'stream').data).toMatchObject({ text: 'no MCP here' });
  });

  it('interrupted (SIGINT in the CLI): the running check finishes, the rest are skipped, exit 130', async () => {
    const home = tempDir('probe-engine-home');
    const demo = await resolveProbeLaunch(
      { agent: 'demo' },
      { env: { TALARIA_HOME: home }, homeDir: home, platform: process.platform },
    );
    const launch = {
      ...demo,
      env: { ...demo.env, TALARIA_DEMO_HOME: tempDir('probe-engine-demo'), TALARIA_DEMO_CHUNK_DELAY_MS: '0' },
    };
    const abort = new AbortController();
    const r = await runProbe({
      launch,
      timeoutMs: 20_000,
      signal: abort.signal,
      onProgress: (s) => s.includes('image prompt') && abort.abort(),
    });
    expect(r.interrupted).toBe(true);
    expect(check(r, 'stream').status).toBe('works');
    expect(check(r, 'image').status).toBe('works');
    for (const id of ['cancel', 'modes', 'model', 'list', 'load', 'resume'])
      expect(check(r, id)).toMatchObject({ status: 'skipped', summary: 'the probe was interrupted' });
    expect(probeExitCode(r)).toBe(EXIT.CANCELLED);
  });
});
