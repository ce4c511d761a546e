/**
 * Hermes quirks around sessions (setup, load, resume, model, mode, MCP), against the emulator
 * through real pipes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesProvider } from '../../src/providers/hermes/provider.js';
import type { Provider } from '../../src/providers/types.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import {
  CONFIG,
  FAKE,
  emuLog,
  hermesHome,
  makeHost,
  notices,
  shutdownHosts,
  tempDir,
  texts,
  waitHost,
  waitSession,
} from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(shutdownHosts);

const FILES = { name: 'files', command: '/bin/true', args: [], env: [] };
const WEB = { type: 'http', name: 'web', url: 'http://127.0.0.1:1/mcp', headers: [] };

describe('Hermes sessions through the host', () => {
  it('load: replays a stored session from a new process; `{}` for an unknown id is session_not_found', async () => {
    const home = hermesHome();
    const a = makeHost({ hermesHome: home });
    const s = await a.host.newSession({ provider: 'hermes', workspace: a.workspace });
    await s.prompt('remember the word teal').result;
    await a.host.shutdown();

    const b = makeHost({ hermesHome: home, workspace: a.workspace });
    const loaded = await b.host.loadSession(s.id, { provider: 'hermes', workspace: a.workspace });
    expect(texts(loaded, 'user_message')).toEqual(['remember the word teal']);
    expect(texts(loaded)).toEqual(['Hello from the fake model! You said: remember the word teal']);
    const err = await b.host
      .loadSession('00000000-0000-4000-8000-000000000000', { provider: 'hermes', workspace: a.workspace })
      .catch((e: unknown) => e);
    expect(isTalariaError(err, 'session_not_found')).toBe(true);
    expect(b.host.agents()[0]!.sessions).toEqual([loaded.id]);
  });

  it('resume: an unknown id that Hermes silently turned into a new session is reported and ignored', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log } });
    const known = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    await known.prompt('first words').result;
    const unknown = '11111111-1111-4111-8111-111111111111';
    const err = (await t.host
      .resumeSession(unknown, { provider: 'hermes', workspace: t.workspace })
      .catch((e: unknown) => e)) as { code: string; details: { strayId: string } };
    expect(err.code).toBe('session_not_found');
    expect(err.details.strayId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.details.strayId).not.toBe(unknown);
    expect(t.host.agents()[0]!.sessions).toEqual([known.id]);
    expect(emuLog(log).some((m) => m.method === 'session/resume' && m.params.sessionId === unknown)).toBe(true);
    // The stray has no messages: Hermes never lists it, and we never route it.
    const listed = await t.host.listSessions({ provider: 'hermes', workspace: t.workspace });
    expect(listed.map((l) => l.sessionId)).toEqual([known.id]);

    await t.host.closeSession(known);
    const resumed = await t.host.resumeSession(known.id, { provider: 'hermes', workspace: t.workspace });
    expect(texts(resumed, 'user_message')).toEqual(['first words']);
  });

  it('after set_model the MCP servers are registered again and usage restarts; http servers are withheld', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log, HERMES_EMU_CATALOG: 'big' } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, mcpServers: [FILES, WEB] });
    expect(notices(s).map((n) => [n.code, n.text])).toEqual([
      ['mcp_server_withheld', expect.stringContaining('"web" (http)')],
    ]);
    const created = emuLog(log).find((m) => m.method === 'session/new')!;
    expect(created.params.mcpServers).toEqual([FILES]);
    expect((await s.prompt('MCP').result).usage?.totalTokens).toBe(2468);
    expect(texts(s).at(-1)).toMatch(/MCP tool mcp__files__echo answered/);

    await s.setModel('nous:anthropic/claude-opus-5');
    const after = emuLog(log).map((m) => m.method);
    const setModel = after.lastIndexOf('session/set_model');
    expect(after.indexOf('session/load', setModel)).toBeGreaterThan(setModel);
    expect(
      emuLog(log)
        .filter((m) => m.method === 'session/load')
        .at(-1)!.params.mcpServers,
    ).toEqual([FILES]);
    const r = await s.prompt('MCP').result;
    expect(texts(s).at(-1)).toMatch(/MCP tool mcp__files__echo answered/);
    // Hermes restarted its counters on set_model: this turn is not "cumulative minus the old total".
    expect(r.usage).toMatchObject({ inputTokens: 2400, outputTokens: 68, totalTokens: 2468 });
    expect(s.catalog.model?.currentId).toBe('nous:anthropic/claude-opus-5');
  });

  it('keeps the updates Hermes sends before (or just after) the session/new response', async () => {
    for (const first of ['1', '0']) {
      const t = makeHost({ emu: { HERMES_EMU_UPDATES_FIRST: first } });
      const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
      if (first === '0' && s.thread.availableCommands.length === 0)
        await waitSession(s, (e) => e.type === 'commands.updated');
      expect(s.thread.availableCommands.map((c) => (c as { name: string }).name)).toContain('compact');
      if (first === '1') expect(s.thread.context).toMatchObject({ size: 131072 });
    }
  });

  it('retries a session/new that failed with MCP servers once without them, and says so', async () => {
    const log = join(tempDir(), 'mcp.log');
    const rejecting: Provider = {
      ...hermesProvider,
      id: 'hermes-mcp-reject',
      locate: async () => ({
        command: process.execPath,
        args: nodeArgs(FAKE('mcp-reject-agent.ts')),
        via: 'test',
      }),
    };
    const t = makeHost({ providers: [rejecting], emu: { MCP_REJECT_LOG: log } });
    const s = await t.host.newSession({ provider: 'hermes-mcp-reject', workspace: t.workspace, mcpServers: [FILES] });
    const news = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((m) => m.method === 'session/new');
    expect(news.map((m) => m.params.mcpServers.length)).toEqual([1, 0]);
    const n = notices(s).find((x) => x.code === 'mcp_servers_dropped')!;
    expect(n.text).toMatch(/MCP server files failed to start/);
    expect(n.text).toMatch(/"files"/);
    expect(s.mcpServers).toEqual([]);
    expect((await s.prompt('hi').result).stopReason).toBe('end_turn');
  });

  it('maps the permission mode onto Hermes modes and applies it again after a restart', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'auto' });
    const first = emuLog(log);
    expect(first.filter((m) => m.method === 'session/set_mode').map((m) => m.params.modeId)).toEqual(['dont_ask']);
    expect(s.catalog.mode?.currentId).toBe('dont_ask');
    await s.prompt('WRITE a.txt').result;
    expect(existsSync(join(t.workspace, 'a.txt'))).toBe(true);

    const pid = t.host.agents()[0]!.pid!;
    process.kill(pid, 'SIGKILL');
    await waitHost(t, (e) => e.type === 'agent.exited');
    const mark = emuLog(log).length;
    await s.prompt('WRITE b.txt').result;
    expect(existsSync(join(t.workspace, 'b.txt'))).toBe(true);
    const again = emuLog(log)
      .slice(mark)
      .map((m) => (m.method === 'session/set_mode' ? `set_mode:${m.params.modeId}` : m.method))
      .filter(Boolean);
    expect(again).toEqual(['initialize', 'session/load', 'set_mode:dont_ask', 'session/prompt']);
    expect(emuLog(log).some((m) => m.method === undefined)).toBe(false);
  });

  it('reports an unconfigured Hermes as "run `hermes setup`", not as a JSON-RPC error', async () => {
    const t = makeHost({ hermesHome: hermesHome(null) });
    const err = (await t.host.newSession({ provider: 'hermes', workspace: t.workspace }).catch((e: unknown) => e)) as {
      code: string;
      message: string;
    };
    expect(err.code).toBe('auth_required');
    expect(err.message).toMatch(/run `hermes setup` to pick a model and add a key/i);
  });

  it('normalizes the big catalog (duplicated custom: rows dropped) and runs a bound profile with -p', async () => {
    const home = hermesHome();
    const work = join(home, 'profiles', 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'config.yaml'), CONFIG);
    const t = makeHost({ hermesHome: home, emu: { HERMES_EMU_CATALOG: 'big' } });
    const s = await t.host.newSession({ provider: 'hermes', profile: 'work', workspace: t.workspace });
    const spawned = t.events.find((e) => e.type === 'agent.spawned') as { args: string[] };
    expect(spawned.args).toEqual(['-p', 'work', 'acp', '--accept-hooks']);
    const ids = s.catalog.model!.options.map((o) => o.id);
    expect(ids.some((id) => id.startsWith('custom:ollama-launch:'))).toBe(false);
    expect(s.catalog.model!.options.find((o) => o.id === 'ollama-launch:gpt-oss:20b')).toMatchObject({
      label: 'gpt-oss:20b',
      aliases: ['custom:ollama-launch:gpt-oss:20b'],
    });
    await s.prompt('in the work profile').result;
    const db = JSON.parse(readFileSync(join(work, 'emulator-sessions.json'), 'utf8')) as {
      sessions: Record<string, unknown>;
    };
    expect(Object.keys(db.sessions)).toEqual([s.id]);
    expect(existsSync(join(home, 'state.db'))).toBe(false);
  });

  it('fork: a copy with the history; an unknown source ({"sessionId": ""}) is session_not_found', async () => {
    const t = makeHost();
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    await s.prompt('original words').result;
    const f = await t.host.forkSession(s.id, { provider: 'hermes', workspace: t.workspace });
    expect(f.id).not.toBe(s.id);
    await f.prompt('and more').result;
    expect(texts(f).at(-1)).toBe('Hello from the fake model! You said: and more');
    const err = await t.host
      .forkSession('22222222-2222-4222-8222-222222222222', { provider: 'hermes', workspace: t.workspace })
      .catch((e: unknown) => e);
    expect(isTalariaError(err, 'session_not_found')).toBe(true);
  });
});
