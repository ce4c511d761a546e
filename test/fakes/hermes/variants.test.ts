/**
 * The emulator's 0.21 mode and its CLI surface (`--version`, `acp --check`, profiles, the
 * bin/hermes wrapper on PATH).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, REAL_COLD } from './config.js';
import { EMULATOR, HERMES_BIN, openSession, text, type Msg } from './test-client.js';
import { CONFIG, prompt, upd, useEnv } from './test-env.js';
import { nodeArgs } from '../../prebuilt.js';

const { root: ROOT, makeHome, makeWs, start } = useEnv();

function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [...nodeArgs(EMULATOR), ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('Hermes emulator, HERMES_EMU_VERSION=0.21', () => {
  const V21 = { HERMES_EMU_VERSION: '0.21' };

  it('chunks carry one messageId per assistant message; leftover open calls close as failed', async () => {
    const c = start(makeHome(), V21);
    const { id } = await openSession(c, makeWs());
    const think = await prompt(c, id, 'THINK about it');
    const ids = new Set(
      think.frames
        .map(upd)
        .filter((u) => u && /_chunk$/.test(u.sessionUpdate))
        .map((u) => u!.messageId),
    );
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f-]{36}$/);
    c.answer('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }));
    const tools = await prompt(c, id, 'TOOLS');
    const updates = tools.frames.map(upd).filter(Boolean) as Msg[];
    const starts = updates.filter((u) => u.sessionUpdate === 'tool_call');
    const closed = updates
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
      .map((u) => u.toolCallId);
    expect(closed).toEqual([starts[0]!.toolCallId, starts[2]!.toolCallId]);
    expect(updates.findIndex((u) => u.status === 'failed')).toBeLessThan(
      updates.findIndex((u) => u.sessionUpdate === 'usage_update'),
    );
    expect((await c.call('initialize', { protocolVersion: 1 })).agentInfo.version).toBe('0.21.0');
  });

  it('a prompt or set_model while running is -32603 "Session is busy"; an unusable model is -32602; MCP survives set_model', async () => {
    const c = start(makeHome(), V21);
    const { id } = await openSession(c, makeWs(), [{ name: 'files', command: 'x', args: [], env: [] }]);
    const mark = c.mark();
    const first = c.request('session/prompt', { sessionId: id, prompt: text('DANGER: remove junkdir') });
    const req = await c.waitFor((m) => m.method === 'session/request_permission', 'permission', mark);
    const busy = await c.request('session/prompt', { sessionId: id, prompt: text('hello') });
    expect(busy.error).toEqual({ code: -32603, message: 'Internal error', data: { details: 'Session is busy' } });
    expect(
      (await c.request('session/set_model', { sessionId: id, modelId: 'custom:fake-model' })).error.data.details,
    ).toBe('Session is busy');
    c.send({ jsonrpc: '2.0', id: req.id, result: { outcome: { outcome: 'selected', optionId: 'deny' } } });
    await first;
    expect((await c.request('session/set_model', { sessionId: id, modelId: 'nowhere:nothing' })).error.code).toBe(
      -32602,
    );
    expect(await c.call('session/set_model', { sessionId: id, modelId: 'custom:fake-model' })).toEqual({});
    expect((await prompt(c, id, 'MCP')).frames.some((m) => upd(m)?.title === 'mcp__files__echo')).toBe(true);
  });
});

describe('Hermes emulator cold start (HERMES_EMU_*_DELAY_MS, HERMES_EMU_COLD=real)', () => {
  it('HERMES_EMU_COLD=real takes the measured medians; explicit knobs win; the default is no delay', () => {
    expect(readSettings({})).toMatchObject({ initDelayMs: 0, newDelayMs: 0, nextNewDelayMs: 0, firstPromptDelayMs: 0 });
    expect(readSettings({ HERMES_EMU_COLD: 'real' })).toMatchObject(REAL_COLD);
    expect(readSettings({ HERMES_EMU_COLD: 'real', HERMES_EMU_NEW_DELAY_MS: '5' })).toMatchObject({
      ...REAL_COLD,
      newDelayMs: 5,
    });
    // The model's time to its first token, on every prompt (bench/talaria-warm.ts).
    expect(readSettings({})).toMatchObject({ turnDelayMs: 0 });
    expect(readSettings({ HERMES_EMU_TURN_DELAY_MS: '7' })).toMatchObject({ turnDelayMs: 7 });
  });

  it('holds stdin, the first agent build, later builds and the first model call for the configured times', async () => {
    const c = start(makeHome(), {
      HERMES_EMU_INIT_DELAY_MS: '50',
      HERMES_EMU_NEW_DELAY_MS: '40',
      HERMES_EMU_NEXT_NEW_DELAY_MS: '30',
      HERMES_EMU_FIRST_PROMPT_DELAY_MS: '20',
    });
    const { id } = await openSession(c, makeWs());
    await c.call('session/new', { cwd: makeWs(), mcpServers: [] });
    await prompt(c, id, 'hello');
    await prompt(c, id, 'hello again');
    const cold = c.stderr.split('\n').filter((l) => l.includes('cold start'));
    expect(cold[0]).toMatch(/cold start: reading stdin in \d+ ms$/);
    expect(cold.slice(1)).toEqual([
      'INFO acp_adapter.session: cold start: building the first agent takes 40 ms',
      'INFO acp_adapter.session: cold start: building the next agent takes 30 ms',
      'INFO acp_adapter.server: cold start: the first model call takes 20 ms',
    ]);
  });
});

describe('Hermes emulator CLI', () => {
  it('--version, acp --version and acp --check', () => {
    const home = makeHome();
    expect(cli(['--version'], { HERMES_HOME: home }).stdout).toBe('Hermes Agent v0.18.2\n');
    expect(cli(['acp', '--version'], { HERMES_HOME: home, HERMES_EMU_VERSION: '0.21' }).stdout).toBe(
      'Hermes Agent v0.21.0\n',
    );
    expect(cli(['acp', '--check'], { HERMES_HOME: home })).toMatchObject({ code: 0, stdout: 'Hermes ACP check OK\n' });
    const bad = cli(['acp', '--check'], { HERMES_HOME: makeHome(null) });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('No LLM provider configured');
  });

  // Seven CLI processes one after another: slow on a loaded machine.
  it(
    'profile list (fixed-width, ◆ on the active one), profile create --clone, -p selects the profile home',
    { timeout: 90_000 },
    async () => {
      const root = makeHome();
      const env = { HERMES_HOME: root };
      const row = /^( ◆|  )(\S+)\s+(\S+)\s+(running|stopped)\s+(\S+)\s+(\S+)\s*$/;
      let out = cli(['profile', 'list'], env).stdout.split('\n');
      expect(out).toContain(' ◆default         fake-model                   stopped      —            —');
      expect(cli(['profile', 'create', 'coder', '--clone', '--description', 'Coding profile'], env).code).toBe(0);
      expect(readFileSync(join(root, 'profiles', 'coder', 'config.yaml'), 'utf8')).toBe(CONFIG);
      out = cli(['profile', 'list'], env).stdout.split('\n');
      expect(out.filter((l) => row.test(l)).map((l) => row.exec(l)!.slice(1, 4))).toEqual([
        [' ◆', 'default', 'fake-model'],
        ['  ', 'coder', 'fake-model'],
      ]);
      expect(cli(['profile', 'create', 'coder', '--clone'], env).code).toBe(1);
      expect(cli(['profile', 'list'], { HERMES_HOME: join(ROOT, 'missing-root') }).stdout.trim()).toBe(
        'No profiles found.',
      );
      expect(cli(['-p', 'ghost', 'acp', '--check'], env).code).toBe(1);

      const c = start(root, {}, ['-p', 'coder', 'acp', '--accept-hooks']);
      const { id } = await openSession(c, makeWs());
      await prompt(c, id, 'hello there');
      expect(readFileSync(join(root, 'profiles', 'coder', 'emulator-sessions.json'), 'utf8')).toContain(id);
      expect(existsSync(join(root, 'profiles', 'coder', 'state.db'))).toBe(true);
      expect(existsSync(join(root, 'state.db'))).toBe(false);
    },
  );

  it('the bin/hermes wrapper runs the emulator as `hermes` from PATH', () => {
    const r = spawnSync('hermes', ['--version'], {
      cwd: tmpdir(),
      env: { ...process.env, PATH: `${HERMES_BIN}:${process.env.PATH}`, HERMES_HOME: makeHome() },
      encoding: 'utf8',
    });
    expect(r.stdout).toBe('Hermes Agent v0.18.2\n');
  });
});
