/**
 * Issue 17's table, as a user runs it: `talaria run --agent-cmd …` with the agent's own launcher.
 * The agents are the recorded real ones (test/fixtures/agents, played by test/fakes/bin/
 * fixture-agent.ts) and the Hermes emulator; their fixes must come from what they say in
 * initialize, since nothing in these command lines names them.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { createHarness } from '../../../src/harness/harness.js';
import type { HostEvent } from '../../../src/host/events.js';
import { currentEnv } from '../../../src/providers/locate.js';
import { parseWireLog } from '../../../src/protocol/wire-log.js';
import type { RawMessage } from '../../../src/protocol/types.js';
import { runCli } from '../../cli/helpers.js';
import { CONFIG, cleanup, script, tempDir } from '../helpers.js';
import { nodeCommand } from '../../prebuilt.js';

vi.setConfig({ testTimeout: 90_000 });
afterEach(cleanup);

const HERMES = fileURLToPath(new URL('../../fakes/hermes/bin/hermes', import.meta.url));
const PLAYER = fileURLToPath(new URL('../../fakes/bin/fixture-agent.ts', import.meta.url));

/**
 * A launcher for a recorded agent whose command line says nothing about which agent it is:
 * `<dir>/<name>` (a shell script) playing a copy of the recording named `recording.ndjson`.
 */
function launcher(agent: string, fixture: string, name = 'start-agent'): string {
  const dir = tempDir('launcher-');
  const copy = join(dir, 'recording.ndjson');
  copyFileSync(fileURLToPath(new URL(`../../fixtures/agents/${agent}/${fixture}.ndjson`, import.meta.url)), copy);
  return script(join(dir, name), `exec ${nodeCommand(PLAYER)} "${copy}"`);
}

/** A user whose Hermes is configured in ~/.hermes (HOME reaches every agent; HERMES_HOME would not reach a command). */
function hermesUser(): string {
  const home = tempDir('user-');
  mkdirSync(join(home, '.hermes'));
  writeFileSync(join(home, '.hermes', 'config.yaml'), CONFIG);
  return home;
}

const sentBy = (wireLog: string) =>
  parseWireLog(readFileSync(wireLog, 'utf8'))
    .filter((l) => l.dir === 'client->agent')
    .map((l) => l.msg);

const fsCaps = (m: RawMessage) => (m.params as { clientCapabilities: { fs: unknown } }).clientCapabilities.fs;

function run(args: string[], o: { env?: Record<string, string> } = {}) {
  const cwd = tempDir('cwd-');
  const log = join(tempDir('wire-'), 'wire.ndjson');
  return runCli(['run', '--wire-log', log, ...args], { cwd, env: { NO_COLOR: '1', ...(o.env ?? {}) } }).then((r) => ({
    ...r,
    sent: () => sentBy(log),
  }));
}

describe('talaria run --agent-cmd: each agent gets its own fixes', () => {
  it('Hermes: a 401 ends the run with exit 5 and says what to do (not exit 0 with raw text)', async () => {
    const r = await run(['--agent-cmd', `${HERMES} acp`, 'AUTHFAIL'], { env: { HOME: hermesUser() } });
    expect(r.code, r.stderr).toBe(EXIT.AGENT_ERROR);
    expect(r.stderr).toContain('hermes setup');
  });

  it('Hermes: the edit approval is not a tool card of its own (no phantom edit-approval-1)', async () => {
    const r = await run(['--agent-cmd', `${HERMES} acp`, '--approve', 'edits', '--json', 'WRITE out.txt'], {
      env: { HOME: hermesUser() },
    });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const calls = (JSON.parse(r.stdout) as { toolCalls: { id?: string; toolCallId?: string; title: string }[] })
      .toolCalls;
    expect(calls.map((c) => c.title)).toEqual([expect.stringMatching(/^write: .*out\.txt$/)]);
  });

  for (const agent of ['copilot', 'pi']) {
    it(`${agent}: a model HTTP 400 (answered as text, or not at all, with end_turn) exits 5`, async () => {
      const r = await run(['--agent-cmd', launcher(agent, 'error-400'), 'Trigger a model failure: [[error: 400]]']);
      expect(r.code, r.stderr).toBe(EXIT.AGENT_ERROR);
    });
  }

  it('gemini-cli from an unnamed launcher: restarted once, before any session, without fs.readTextFile (its new-file bug)', async () => {
    const r = await run(['--agent-cmd', launcher('gemini-cli', 'write'), '--approve', 'edits', 'Write a file']);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const sent = r.sent();
    const inits = sent.filter((m) => m.method === 'initialize');
    expect(inits.map(fsCaps)).toEqual([
      { readTextFile: true, writeTextFile: true },
      { readTextFile: false, writeTextFile: true },
    ]);
    // Nothing but initialize went to the first process.
    expect(sent.slice(0, sent.indexOf(inits[1]!)).map((m) => m.method)).toEqual(['initialize']);
  });

  it('gemini-cli from a command that names it: no read capability from the first process, no restart', async () => {
    const r = await run([
      '--agent-cmd',
      launcher('gemini-cli', 'write', 'gemini'),
      '--approve',
      'edits',
      'Write a file',
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(
      r
        .sent()
        .filter((m) => m.method === 'initialize')
        .map(fsCaps),
    ).toEqual([{ readTextFile: false, writeTextFile: true }]);
  });

  it('qwen-code: --approve none switches it out of its own auto mode first, then its ask is denied', async () => {
    const r = await run(['--agent-cmd', launcher('qwen-code', 'write'), '--approve', 'none', 'Write a file']);
    const sent = r.sent();
    const methods = sent.map((m) => m.method).filter(Boolean);
    const mode = sent.find((m) => m.method === 'session/set_config_option');
    expect(mode?.params).toMatchObject({ value: 'default' });
    expect(methods.indexOf('session/set_config_option')).toBeLessThan(methods.indexOf('session/prompt'));
    const answer = sent.find(
      (m) => m.method === undefined && (m.result as { outcome?: { optionId?: string } } | undefined)?.outcome,
    );
    expect((answer!.result as { outcome: { optionId: string } }).outcome.optionId).toMatch(/cancel|reject/);
  });
});

describe('the library face: commandAgent() gets the same fixes', () => {
  it('claude-agent-acp by command: restarted once for terminal-auth; after a failed turn the next prompt reopens the session first (else an empty "done")', async () => {
    const home = tempDir('home-');
    const sent: RawMessage[] = [];
    const h = createHarness({
      home: join(home, '.talaria'),
      env: currentEnv({ env: { PATH: process.env.PATH, HOME: home }, homeDir: home }),
      host: { permission: { mode: 'auto' } },
      onFrame: (_k, f) => f.dir === 'client->agent' && sent.push(f.msg),
    });
    const events: HostEvent[] = [];
    h.host.subscribe((e) => events.push(e));
    try {
      const hs = await h.workspaces
        .open(tempDir('ws-'))
        .newSession({ provider: h.commandAgent(launcher('claude-agent-acp', 'error-then-cancel'), []).id });
      // Its `_meta.terminal-auth` capability is only known to be needed after initialize.
      const spawned = events.filter(
        (e): e is Extract<HostEvent, { type: 'agent.spawned' }> => e.type === 'agent.spawned',
      );
      expect(spawned.map((e) => e.quirks)).toEqual([
        {
          set: 'claude-acp',
          label: 'Claude Code ACP adapter',
          basis: 'agent',
          why: 'the agent named itself "@zed-industries/claude-agent-acp" 0.23.1 (any version)',
          restartedFrom: 'generic',
        },
      ]);
      const inits = sent
        .filter((m) => m.method === 'initialize')
        .map((m) => (m.params as { clientCapabilities: { _meta?: unknown } }).clientCapabilities._meta);
      expect(inits).toEqual([undefined, { 'terminal-auth': true }]);

      const failed = await hs.session.prompt('fail').result;
      expect(failed.error?.code).toBe('agent_error');
      const turn = hs.session.prompt('long tool');
      await new Promise<void>((resolve) => {
        const has = () => hs.session.thread.entries.some((e) => e.kind === 'tool_call' && e.turnId === turn.id);
        if (has()) return resolve();
        const unsub = hs.session.subscribe(() => has() && (unsub(), resolve()));
      });
      const order = sent.map((m) => m.method).filter((m): m is string => m?.startsWith('session/') === true);
      expect(order.slice(-3)).toEqual(['session/close', 'session/resume', 'session/prompt']);
      await hs.session.cancel();
      expect((await turn.result).stopReason).toBe('cancelled');
    } finally {
      await h.close();
    }
  });

  it('a command agent known from a stored session (agentName) gets its capabilities from the first process', async () => {
    const home = tempDir('home-');
    const sent: RawMessage[] = [];
    const h = createHarness({
      home: join(home, '.talaria'),
      env: currentEnv({ env: { PATH: process.env.PATH, HOME: home }, homeDir: home }),
      onFrame: (_k, f) => f.dir === 'client->agent' && sent.push(f.msg),
    });
    const events: HostEvent[] = [];
    h.host.subscribe((e) => events.push(e));
    try {
      const provider = h.commandAgent(launcher('gemini-cli', 'text'), [], undefined, 'gemini-cli');
      await h.workspaces.open(tempDir('ws-')).newSession({ provider: provider.id });
      expect(sent.filter((m) => m.method === 'initialize').map(fsCaps)).toEqual([
        { readTextFile: false, writeTextFile: true },
      ]);
      const spawned = events.find(
        (e): e is Extract<HostEvent, { type: 'agent.spawned' }> => e.type === 'agent.spawned',
      );
      expect(spawned?.quirks).toMatchObject({ set: 'gemini-cli', basis: 'agent' });
      expect(spawned?.quirks?.restartedFrom).toBeUndefined();
    } finally {
      await h.close();
    }
  });
});
