/**
 * `talaria acp --agent demo` driven by the official SDK client over real pipes: a recorded harness
 * session the CLI lists, Talaria's ids, streamed chunks with messageIds, the policy inside, and
 * every frame talaria acp writes valid against the ACP schema.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { agentText, editorEnv, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  clientInfo: { name: 'test-editor', version: '1' },
};

describe.concurrent('talaria acp --agent demo', () => {
  it('serves ACP on stdout only: initialize, session/new (recorded, listed), a streamed turn with messageIds', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    const init = await ed.request<any>('initialize', INIT);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: 'talaria' });
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    });
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    expect(typeof s.sessionId).toBe('string');
    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(agentText(ed.updates, s.sessionId).length).toBeGreaterThan(0);
    const chunks = ed.updates.filter((u) => /_chunk$/.test(u.update.sessionUpdate));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((u) => typeof u.update.messageId === 'string')).toBe(true);
    // Listed by the CLI while the editor still has it open (Talaria's id is the editor's id).
    const listed = await runCli(['sessions', 'list', '--json'], { cwd, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(s.sessionId);
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames);
  });

  it('session/new with the folder written differently ("/repo/") takes the session warmed at initialize, not a second one', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd: `${cwd}/`, mcpServers: [] });
    // A second session would idle beside this one (its recorder checkpointing the store mid-turn).
    const listed = await runCli(['sessions', 'list', '--json'], { cwd, env });
    expect(listed.code, listed.stderr).toBe(0);
    const { sessions } = JSON.parse(listed.stdout) as { sessions: { id: string }[] };
    expect(sessions.map((r) => r.id)).toEqual([s.sessionId]);
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames);
  });

  it('asks the editor for a permission the policy leaves open; the answer reaches the agent', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    writeFileSync(join(cwd, 'notes.txt'), 'one\n');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'write made.txt hi there' }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(ed.permissions).toHaveLength(1);
    expect(ed.permissions[0]!.sessionId).toBe(s.sessionId);
    expect(existsSync(join(cwd, 'made.txt'))).toBe(true);
    await ed.close();
    expectValidWire(ed.frames);
  });

  it('--approve all: the rule answers inside Talaria (the editor is not asked); a sensitive path still asks the editor', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    const ed = startEditor(['--agent', 'demo', '--approve', 'all'], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'write auto.txt by rule' }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(ed.permissions).toEqual([]);
    expect(readFileSync(join(cwd, 'auto.txt'), 'utf8')).toContain('by rule');
    // A sensitive path still asks the editor, whatever --approve says.
    await ed.request('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'write .env SECRET=1' }],
    });
    expect(ed.permissions).toHaveLength(1);
    expect(JSON.stringify(ed.permissions[0])).toContain('.env');
    await ed.close();
    const shown = await runCli(['sessions', 'show', s.sessionId, '--json'], { cwd, env });
    expect(shown.code, shown.stderr).toBe(0);
    expectValidWire(ed.frames);
  });

  it('bad input: a line that is not JSON gets a parse error; unknown methods reach the agent; unknown sessions are refused', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    ed.raw('this is not json\n');
    await ed.until(
      () => ed.frames.some((f) => f.msg.id === null && (f.msg.error as any)?.code === -32700),
      'the parse error',
    );
    await ed.request('initialize', INIT);
    // The demo agent does not know `_vendor/ping`: its own "Method not found" comes back through Talaria.
    await expect(ed.request('_vendor/ping', { x: 1 })).rejects.toMatchObject({ code: -32601 });
    await expect(
      ed.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'hi' }] }),
    ).rejects.toMatchObject({ code: -32002 });
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    expect(
      (await ed.request<any>('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] }))
        .stopReason,
    ).toBe('end_turn');
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames.filter((f) => f.msg.id !== null));
  });

  it("session/load replays Talaria's thread in a new process; session/resume does not; session/delete archives", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ws');
    const first = startEditor(['--agent', 'demo'], { cwd, env });
    await first.request('initialize', INIT);
    const s = await first.request<any>('session/new', { cwd, mcpServers: [] });
    await first.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    const said = agentText(first.updates, s.sessionId);
    await first.close();

    const second = startEditor(['--agent', 'demo'], { cwd, env });
    await second.request('initialize', INIT);
    const listed = await second.request<any>('session/list', { cwd });
    expect(listed.sessions.map((x: any) => x.sessionId)).toContain(s.sessionId);
    await second.request('session/load', { sessionId: s.sessionId, cwd, mcpServers: [] });
    expect(agentText(second.updates, s.sessionId)).toContain(said.trim().slice(0, 20));
    const chunks = () => second.updates.filter((u) => /_chunk$/.test(u.update.sessionUpdate)).length;
    const before = chunks();
    await second.request('session/resume', { sessionId: s.sessionId, cwd, mcpServers: [] });
    // Resume never replays history (the agent's own late updates, e.g. its commands, may still come).
    expect(chunks()).toBe(before);
    await second.request('session/delete', { sessionId: s.sessionId });
    await second.close();
    const archived = await runCli(['sessions', 'list', '--json', '--archived'], { cwd, env });
    expect(archived.stdout).toContain(s.sessionId);
    expectValidWire(second.frames, { except: (v) => v.method === 'session/delete' });
  });
});
