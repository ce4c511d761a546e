/**
 * The Hermes emulator's session and protocol quirks: resume/fork of unknown ids, session/list,
 * protocol edges, the frame log, the big catalog and titles.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSession, type Msg } from './test-client.js';
import { CONFIG, prompt, upd, useEnv } from './test-env.js';

const { root: ROOT, makeHome, makeWs, start, next } = useEnv();

describe('Hermes emulator quirks (0.18.2): sessions and protocol', () => {
  it('resume of an unknown id creates a session named only in _meta; fork answers sessionId "" for an unknown source', async () => {
    const ws = makeWs();
    const c = start(makeHome());
    await c.call('initialize', { protocolVersion: 1 });
    const mark = c.mark();
    const r = await c.call('session/resume', { sessionId: 'nope', cwd: ws, mcpServers: [] });
    expect(r.sessionId).toBeUndefined();
    const newId = r._meta.hermes.sessionProvenance.acpSessionId as string;
    expect(newId).toMatch(/^[0-9a-f-]{36}$/);
    await c.waitFor((m) => upd(m)?.sessionUpdate === 'usage_update', 'usage', mark);
    expect(
      c
        .since(mark)
        .filter((m) => m.method)
        .every((m) => m.params.sessionId === newId),
    ).toBe(true);
    expect((await prompt(c, newId, 'hello there')).res.result.stopReason).toBe('end_turn');
    expect(await c.call('session/fork', { sessionId: 'nope', cwd: ws, mcpServers: [] })).toEqual({ sessionId: '' });
    const fork = await c.call('session/fork', { sessionId: newId, cwd: ws, mcpServers: [] });
    expect(Object.keys(fork).sort()).toEqual(['models', 'modes', 'sessionId']);
    const listed = (await c.call('session/list', {})).sessions.map((s: Msg) => s.sessionId);
    expect(listed).toContain(fork.sessionId); // the fork copied the history
  });

  it('two emulators on one home make sessions at once and lose none (one write lock, as state.db)', async () => {
    const root = makeHome();
    const ws = makeWs();
    const a = start(root);
    const b = start(root);
    await Promise.all([a.call('initialize', { protocolVersion: 1 }), b.call('initialize', { protocolVersion: 1 })]);
    const made = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).call('session/new', { cwd: ws, mcpServers: [] })),
    );
    const ids = made.map((s: Msg) => s.sessionId as string);
    const file = JSON.parse(readFileSync(join(root, 'emulator-sessions.json'), 'utf8')) as {
      sessions: Record<string, unknown>;
    };
    expect(Object.keys(file.sessions).sort()).toEqual([...ids].sort());
    const db = new Database(join(root, 'state.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT id FROM sessions').all() as { id: string }[];
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      db.close();
    }
  });

  it('session/list filters by cwd, pages with a cursor, skips empty sessions and is isolated per profile', async () => {
    const root = makeHome();
    writeFileSync(join(root, 'config.yaml'), CONFIG);
    const other = join(root, 'profiles', 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'config.yaml'), CONFIG);
    const ws = makeWs();
    const c = start(root, { HERMES_EMU_LIST_PAGE: '2' });
    await c.call('initialize', { protocolVersion: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await c.call('session/new', { cwd: ws, mcpServers: [] });
      ids.push(s.sessionId);
      await prompt(c, s.sessionId, `talk ${i}`);
    }
    await c.call('session/new', { cwd: ws, mcpServers: [] }); // empty: never listed
    const elsewhere = await c.call('session/new', { cwd: makeWs(), mcpServers: [] });
    await prompt(c, elsewhere.sessionId, 'elsewhere');
    const page1 = await c.call('session/list', { cwd: ws });
    expect(page1.sessions.map((s: Msg) => s.sessionId)).toEqual([ids[2], ids[1]]);
    expect(page1.nextCursor).toBe(ids[1]);
    const page2 = await c.call('session/list', { cwd: ws, cursor: page1.nextCursor });
    expect(page2).toEqual({ sessions: [expect.objectContaining({ sessionId: ids[0], cwd: ws })] });
    expect(await c.call('session/list', { cursor: 'unknown' })).toEqual({ sessions: [] });
    const p = start(root, {}, ['-p', 'other', 'acp']);
    await p.call('initialize', { protocolVersion: 1 });
    expect((await p.call('session/list', {})).sessions).toEqual([]);
  });

  it('protocol edges: close, delete, unknown and extension methods, authenticate, bad params, refusal, non-JSON, stdin close', async () => {
    const c = start(makeHome());
    const { id } = await openSession(c, makeWs());
    c.sendRaw('this is not json\n');
    expect(await c.call('session/close', { sessionId: id })).toEqual({});
    expect((await c.request('session/delete', { sessionId: id })).error).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { method: 'session/delete' },
    });
    expect((await c.request('nope/nope', {})).error.data).toEqual({ method: 'nope/nope' });
    expect((await c.request('_acme/thing', { x: 1 })).result).toBeNull();
    expect(await c.call('authenticate', { methodId: 'whatever' })).toEqual({});
    const bad = await c.request('session/new', { mcpServers: [] });
    expect(bad.error).toMatchObject({
      code: -32602,
      message: 'Invalid params',
      data: { errors: [{ type: 'missing', loc: ['cwd'], msg: 'Field required' }] },
    });
    expect((await prompt(c, 'no-such-session', 'hi')).res.result).toEqual({ stopReason: 'refusal' });
    expect(await c.call('session/load', { sessionId: 'no-such-session', cwd: '/x', mcpServers: [] })).toEqual({});
    expect(c.noise).toEqual([]);
    expect(await c.close()).toBe(0);
    expect(c.stderr).toContain('non-JSON');
  });

  it('HERMES_EMU_LOG records every frame the client sent', async () => {
    const log = join(ROOT, `frames${next()}.ndjson`);
    const c = start(makeHome(), { HERMES_EMU_LOG: log });
    const { id } = await openSession(c, makeWs());
    await prompt(c, id, 'hello there');
    const sent = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Msg);
    expect(sent.map((l) => l.msg.method)).toEqual(['initialize', 'session/new', 'session/prompt']);
    expect(sent[0]).toMatchObject({ dir: 'client->agent', t_ms: expect.any(Number) });
  });

  it('HERMES_EMU_CATALOG=big: 50+ rows, provider headings, bare names, custom duplicates, one current', async () => {
    const c = start(makeHome(), { HERMES_EMU_CATALOG: 'big' });
    const { result } = await openSession(c, makeWs());
    const rows = result.models.availableModels as Msg[];
    expect(rows.length).toBeGreaterThanOrEqual(50);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(['description', 'modelId', 'name']);
    expect(rows.filter((r) => r.description.endsWith(' • current')).map((r) => r.modelId)).toEqual([
      'custom:fake-model',
    ]);
    const ids = rows.map((r) => r.modelId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'ollama-launch:gpt-oss:20b',
        'custom:ollama-launch:gpt-oss:20b',
        'custom:kimi-k2.7-code',
      ]),
    );
    expect(rows.find((r) => r.modelId === 'ollama-launch:gpt-oss:20b')!.name).toBe('gpt-oss:20b');
    expect(rows.find((r) => r.modelId.startsWith('nous:'))!.name).toMatch(/^Nous Portal · /);
    expect(new Set(rows.map((r) => r.description.replace(' • current', ''))).size).toBeGreaterThanOrEqual(4);
  });

  it('titles: after a failed first exchange too; a colliding title is skipped and the second exchange tries again; never after the second', async () => {
    const c = start(makeHome());
    const titles = () =>
      c.frames
        .map(upd)
        .filter((u) => u?.sessionUpdate === 'session_info_update')
        .map((u) => u!.title);
    const session = async () => (await c.call('session/new', { cwd: makeWs(), mcpServers: [] })).sessionId as string;
    const a = await openSession(c, makeWs());
    await prompt(c, a.id, 'AUTHFAIL now');
    const b = await session();
    await prompt(c, b, 'hello there');
    await c.waitFor((m) => m.params?.sessionId === b && upd(m)?.sessionUpdate === 'session_info_update', 'title of b');
    const twice = await session();
    for (const t of ['hello there', 'hello there', 'fresh topic']) await prompt(c, twice, t);
    const d = await session();
    for (const t of ['hello there', 'other words']) await prompt(c, d, t);
    // Title timers fire in order: by d's title, a third-exchange title of `twice` would be there.
    await c.waitFor((m) => m.params?.sessionId === d && upd(m)?.sessionUpdate === 'session_info_update', 'title of d');
    expect(titles()).toEqual(['AUTHFAIL now', 'Hello there', 'Other words']);
    expect(c.stderr.match(/collides with another session/g)).toHaveLength(3);
  });
});
