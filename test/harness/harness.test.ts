import { describe, it, expect, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayWireLogText } from '../../src/session/replay.js';
import { FIXTURES, makeHarness, place, texts } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

const msgs = (h: ReturnType<typeof makeHarness>, id: string) => h.store.wire.read(id).map((l) => l.msg);
const sidOf = (m: { params?: unknown }) => (m.params as { sessionId?: string } | undefined)?.sessionId;

describe.concurrent('createHarness: sessions are recorded as they happen', () => {
  it('a new session: its row, wire log (handshake first), thread entries and turn are in the store', async () => {
    const p = place();
    const h = makeHarness(p);
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    expect(s).toMatchObject({ provider: 'demo', origin: 'new', historyFrom: 'none', workspace: p.userHome });
    const r = await s.prompt('hello there').result;
    expect(r.stopReason).toBe('end_turn');
    const row = h.store.sessions.get(s.id)!;
    expect(row).toMatchObject({
      agentSessionId: s.agentSessionId,
      provider: 'demo',
      cwd: p.userHome,
      agentInfo: { agentInfo: { name: 'talaria-demo' } },
    });
    expect(row.title).toBeTruthy();
    const wire = msgs(h, s.id);
    expect(wire.slice(0, 4).map((m) => m.method ?? `answer ${String(m.id)}`)).toEqual([
      'initialize',
      'answer 0',
      'session/new',
      'answer 1',
    ]);
    expect(wire.filter((m) => m.method === 'session/update').length).toBeGreaterThan(3);
    // The stored thread is the live one, entry for entry.
    expect(h.store.entries.list(s.id)).toEqual(JSON.parse(JSON.stringify(s.thread.entries)));
    expect(h.store.turns.list(s.id)).toEqual([expect.objectContaining({ turnId: r.turnId, stopReason: 'end_turn' })]);
    await h.close();
    expect(h.store.closed).toBe(true);
  });

  it('permission decisions land in the audit log of the right session', async () => {
    const p = place();
    writeFileSync(join(p.userHome, 'notes.txt'), 'hello\n');
    const h = makeHarness(p, { host: { terminateGraceMs: 500, permission: { mode: 'auto' } } });
    const ws = h.workspaces.open(p.userHome);
    const [a, b] = await Promise.all([ws.newSession({ provider: 'demo' }), ws.newSession({ provider: 'demo' })]);
    await a.prompt('edit notes.txt').result;
    await b.prompt('hello').result;
    expect(h.store.permissions.listAudit(a.id)).toEqual([
      expect.objectContaining({
        decidedBy: 'policy',
        agentSessionId: a.agentSessionId,
        outcome: expect.objectContaining({ outcome: 'selected' }),
      }),
    ]);
    expect(h.store.permissions.listAudit(b.id)).toEqual([]);
    expect(readFileSync(join(p.userHome, 'notes.txt'), 'utf8')).toContain('Edited by the Talaria demo agent');
  });

  it("stored workspace and global rules apply to the workspace's sessions", async () => {
    const p = place();
    writeFileSync(join(p.userHome, 'notes.txt'), 'hello\n');
    const h = makeHarness(p, { host: { terminateGraceMs: 500, permission: { mode: 'ask' } } });
    const ws = h.workspaces.open(p.userHome);
    h.store.permissions.addRule({
      scope: 'workspace',
      scopeId: ws.id,
      rule: { decision: 'allow', toolKind: 'edit', pathGlob: join(p.userHome, 'notes.txt'), source: 'user' },
    });
    h.store.permissions.addRule({
      scope: 'global',
      rule: { decision: 'deny', toolKind: 'execute', command: 'echo *', source: 'user' },
    });
    const s = await ws.newSession({ provider: 'demo' });
    // Nobody answers: only the stored rules can decide these without a 60 s wait.
    await s.prompt('edit notes.txt').result;
    await s.prompt('run echo hi').result;
    const audit = h.store.permissions.listAudit(s.id);
    expect(audit.map((a) => a.decidedBy)).toEqual(['policy', 'policy']);
    expect(readFileSync(join(p.userHome, 'notes.txt'), 'utf8')).toContain('Edited by the Talaria demo agent');
    const run = s.session.thread.entries.find((e) => e.kind === 'tool_call' && e.toolKind === 'execute');
    expect(run).toMatchObject({ status: 'failed', permission: { status: 'rejected' } });
    await h.close();
  });

  it('two sessions on one agent process: each log holds only its own session frames', async () => {
    const p = place();
    const h = makeHarness(p);
    const ws = h.workspaces.open(p.userHome);
    const [a, b] = await Promise.all([ws.newSession({ provider: 'demo' }), ws.newSession({ provider: 'demo' })]);
    expect(h.host.agents()).toHaveLength(1);
    expect(h.host.agents()[0]!.sessions.sort()).toEqual([a.agentSessionId, b.agentSessionId].sort());
    await Promise.all([a.prompt('from a').result, b.prompt('from b').result, a.prompt('a again').result]);
    for (const [s, other, prompts] of [
      [a, b, ['from a', 'a again']],
      [b, a, ['from b']],
    ] as const) {
      const wire = msgs(h, s.id);
      expect(wire[0]!.method).toBe('initialize');
      expect(wire.some((m) => sidOf(m) === other.agentSessionId)).toBe(false);
      expect(wire.filter((m) => sidOf(m) !== undefined).every((m) => sidOf(m) === s.agentSessionId)).toBe(true);
      const sent = wire
        .filter((m) => m.method === 'session/prompt')
        .map((m) => (m.params as { prompt: { text: string }[] }).prompt[0]!.text);
      expect(sent).toEqual(prompts);
      // Every prompt got its answer in this log.
      const ids = wire.filter((m) => m.method === 'session/prompt').map((m) => m.id);
      for (const id of ids)
        expect(
          wire.some((m) => m.id === id && m.method === undefined && (m.result as { stopReason?: string })?.stopReason),
        ).toBe(true);
      // The recorded log replays into the same conversation.
      const replayed = await replayWireLogText(h.store.wire.exportNdjson(s.id));
      expect(texts(replayed.sessions[0]!)).toEqual(prompts);
    }
  });

  it('after a restart: listed from the store merged with the agent; opening loads the history from the agent', async () => {
    const p = place();
    const h1 = makeHarness(p);
    const s = await h1.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await s.prompt('remember me').result;
    await h1.close();
    // Another client of the same agent made a session Talaria never stored.
    const other = makeHarness({ ...p, home: place().home });
    const foreign = await other.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await foreign.prompt('made elsewhere').result;
    await other.close();

    const h2 = makeHarness(p);
    const ws = h2.workspaces.open(p.userHome);
    const storeOnly = await ws.sessions();
    expect(storeOnly.sessions.map((x) => x.id)).toEqual([s.id]);
    const merged = await ws.sessions({ agent: { provider: 'demo' } });
    expect(merged.agentProblem).toBeUndefined();
    expect(merged.sessions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: s.id, stored: true, atAgent: true }),
        expect.objectContaining({ id: foreign.agentSessionId, stored: false, atAgent: true }),
      ]),
    );
    const again = await ws.openSession(s.id);
    expect(again).toMatchObject({ id: s.id, origin: 'loaded', historyFrom: 'agent' });
    expect(texts(again)).toEqual(['remember me']);
    await again.prompt('and continue').result;
    expect(texts(again)).toEqual(['remember me', 'and continue']);
    const wire = msgs(h2, s.id);
    expect(wire.filter((m) => m.method === 'initialize')).toHaveLength(2);
    expect(wire.filter((m) => m.method === 'session/load')).toHaveLength(1);
    expect(h2.store.entries.list(s.id).filter((e) => e.kind === 'user_message')).toHaveLength(2);
    // An id only the agent knew is loaded and stored from now on.
    const adopted = await ws.openSession(foreign.agentSessionId);
    expect(adopted).toMatchObject({ origin: 'loaded', historyFrom: 'agent', agentSessionId: foreign.agentSessionId });
    expect(h2.sessions.find(foreign.agentSessionId)?.id).toBe(adopted.id);
  });

  it('the agent lost the session: the stored thread is restored (a cut-off turn settled) and says so', async () => {
    const p = place();
    const h1 = makeHarness(p);
    const s = await h1.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await s.prompt('read notes.txt').result;
    await h1.close();
    // Another demo folder: the agent no longer has the session.
    const p2 = { ...p, demoHome: place().demoHome };
    const h2 = makeHarness(p2);
    // As if the harness had died mid-turn: an open turn with a running tool call in the stored thread.
    const meta = h2.store.entries.getMeta(s.id)!;
    h2.store.entries.setMeta(s.id, { ...meta, openTurnId: 'turn-cut' });
    const n = h2.store.entries.count(s.id);
    h2.store.entries.upsert(s.id, n, {
      id: `e${n + 10}`,
      kind: 'tool_call',
      toolCallId: 'tc-cut',
      title: 'Run tests',
      status: 'in_progress',
      content: [],
      locations: [],
      turnId: 'turn-cut',
    });
    const back = await h2.workspaces.open(p.userHome).openSession(s.id);
    expect(back).toMatchObject({ id: s.id, origin: 'restored', historyFrom: 'store' });
    expect(back.agentSessionId).not.toBe(s.agentSessionId);
    expect(h2.store.sessions.get(s.id)!.agentSessionId).toBe(back.agentSessionId);
    expect(texts(back)).toEqual(['read notes.txt']);
    expect(back.thread.entries.find((e) => e.kind === 'tool_call' && e.toolCallId === 'tc-cut')).toMatchObject({
      status: 'cancelled',
    });
    expect(back.thread.entries.at(-1)).toMatchObject({ kind: 'notice', code: 'history_restored' });
    await back.prompt('still here?').result;
    expect(texts(back)).toEqual(['read notes.txt', 'still here?']);
    expect(h2.store.entries.list(s.id).filter((e) => e.kind === 'user_message')).toHaveLength(2);
    await h2.close();
    // Later the agent has the new session but only from the restore on: the stored thread stays the history.
    const h3 = makeHarness(p2);
    const later = await h3.workspaces.open(p.userHome).openSession(s.id);
    expect(later).toMatchObject({ origin: 'loaded', historyFrom: 'store', agentSessionId: back.agentSessionId });
    expect(texts(later)).toEqual(['read notes.txt', 'still here?']);
  });

  it('archive and unarchive are Talaria-side: hidden from listings (even when the agent lists it), nothing deleted', async () => {
    const p = place();
    const h = makeHarness(p);
    const ws = h.workspaces.open(p.userHome);
    const s = await ws.newSession({ provider: 'demo' });
    await s.prompt('keep me').result;
    const frames = h.store.wire.count(s.id);
    expect(h.sessions.archive(s.id.slice(0, 8)).archived).toBe(true);
    expect((await ws.sessions({ agent: { provider: 'demo' } })).sessions).toEqual([]);
    expect((await ws.sessions({ includeArchived: true })).sessions).toEqual([
      expect.objectContaining({ id: s.id, archived: true }),
    ]);
    expect((await ws.sessions({ archivedOnly: true, agent: { provider: 'demo' } })).sessions.map((x) => x.id)).toEqual([
      s.id,
    ]);
    // Nothing was deleted (listing at the agent only added its session/list frames to the bound session).
    expect(h.store.wire.count(s.id)).toBeGreaterThanOrEqual(frames);
    expect(h.sessions.unarchive(s.id).archived).toBe(false);
    expect((await ws.sessions()).sessions.map((x) => x.id)).toEqual([s.id]);
    expect(() => h.sessions.archive('no-such-session')).toThrow(/no stored session/);
  });

  it('export as Markdown, JSON and a replayable fixture; import a recorded Hermes fixture', async () => {
    const p = place();
    const h = makeHarness(p);
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await s.prompt('export me').result;
    const md = await h.sessions.export(s.id, 'md');
    expect(md).toMatch(/^# .+\n\n### User\n\nexport me\n/);
    const json = JSON.parse(await h.sessions.export(s.id, 'json')) as {
      format: string;
      session: { id: string };
      wire: unknown[];
      entries: unknown[];
    };
    expect(json).toMatchObject({ format: 'talaria.session', session: { id: s.id } });
    expect(json.wire.length).toBe(h.store.wire.count(s.id));
    const fixture = await h.sessions.export(s.id, 'fixture');
    expect(texts((await replayWireLogText(fixture)).sessions[0]!)).toEqual(['export me']);

    const imported = await h.sessions.import(readFileSync(join(FIXTURES, 'main.ndjson'), 'utf8'));
    expect(imported).toMatchObject({ provider: 'hermes', cwd: '/workspace' });
    expect(h.store.entries.count(imported.id)).toBeGreaterThan(3);
    expect(await h.sessions.export(imported.id, 'md')).toContain('Hello from the fake model! You said: hello there');
    // Round trip: our own export imports as a demo session with the same thread.
    const back = await h.sessions.import(fixture);
    expect(back.provider).toBe('demo');
    expect(await h.sessions.export(back.id, 'md')).toContain('export me');
    await expect(h.sessions.import('not a fixture\n')).rejects.toThrow(/not a wire fixture/);
  });
});

describe.concurrent('forking', () => {
  it('an agent that cannot fork (demo): a Talaria-side fork shows the history, says the agent starts afresh', async () => {
    const p = place();
    const h = makeHarness(p);
    const ws = h.workspaces.open(p.userHome);
    const s = await ws.newSession({ provider: 'demo' });
    await s.prompt('the original').result;
    const f = await ws.forkSession(s.id);
    expect(f).toMatchObject({ origin: 'restored', historyFrom: 'store' });
    expect(f.id).not.toBe(s.id);
    expect(texts(f)).toEqual(['the original']);
    expect(h.store.sessions.get(f.id)!.title).toMatch(/\(fork\)$/);
    await f.prompt('the fork').result;
    expect(texts(s)).toEqual(['the original']);
    expect(texts(f)).toEqual(['the original', 'the fork']);
  });

  it('Hermes (emulator) forks at the agent', async () => {
    const p = place();
    const h = makeHarness(p, { hermes: true });
    const ws = h.workspaces.open(p.userHome);
    const s = await ws.newSession({ provider: 'hermes' });
    await s.prompt('hello').result;
    const f = await ws.forkSession(s.id);
    expect(f).toMatchObject({ provider: 'hermes', origin: 'forked', historyFrom: 'store' });
    expect(texts(f)).toEqual(['hello']);
    expect(msgs(h, f.id).some((m) => m.method === 'session/fork')).toBe(true);
    expect(msgs(h, s.id).some((m) => m.method === 'session/fork')).toBe(false);
  });
});

describe.concurrent('picking the agent', () => {
  it('best ready: the Hermes emulator when configured; the demo when nothing is ready; a binding wins', async () => {
    const withHermes = makeHarness(place(), { hermes: true });
    expect(await withHermes.pickAgent({ workspace: '/' })).toMatchObject({ provider: 'hermes', from: 'best-ready' });
    const unconfigured = makeHarness(place({ hermes: 'unconfigured' }), { hermes: true });
    const fallback = await unconfigured.pickAgent({ workspace: '/' });
    expect(fallback).toMatchObject({ provider: 'demo', from: 'fallback' });
    expect(fallback.checked.find((r) => r.providerId === 'hermes')).toMatchObject({
      found: true,
      ready: false,
      gaps: [expect.objectContaining({ code: 'unconfigured' })],
    });
    expect(fallback.checked.map((r) => r.providerId)).toEqual([
      'hermes',
      'claude-code',
      'codex',
      'gemini',
      'opencode',
      'kimi',
      'qwen',
      'copilot',
      'kilo',
      'pi',
      'cursor',
    ]);
    expect(await unconfigured.pickAgent({ workspace: '/', provider: 'hermes' })).toMatchObject({
      provider: 'hermes',
      from: 'flag',
      checked: [],
    });
  });

  it("config.json: a workspace's binding (with its profile), else defaultProvider, before any readiness check", async () => {
    const p = place();
    const ws = join(p.userHome, 'proj');
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ defaultProvider: 'demo', workspaces: { [ws]: { provider: 'hermes', profile: 'work' } } }),
    );
    const h = makeHarness(p, { hermes: true });
    expect(await h.pickAgent({ workspace: join(ws, 'sub') })).toEqual({
      provider: 'hermes',
      profile: 'work',
      from: 'workspace',
      checked: [],
    });
    expect(await h.pickAgent({ workspace: p.userHome })).toEqual({ provider: 'demo', from: 'default', checked: [] });
  });
});

describe('finding stored sessions', () => {
  it('by Talaria id, agent id or a unique prefix (4+ characters); an ambiguous prefix is an error', () => {
    const h = makeHarness(place());
    const a = h.store.sessions.create({ id: 'abcd-1111', provider: 'demo', cwd: '/w', agentSessionId: 'agent-a' });
    h.store.sessions.create({ id: 'abcd-2222', provider: 'demo', cwd: '/w' });
    expect(h.sessions.find('abcd-1111')?.id).toBe(a.id);
    expect(h.sessions.find('agent-a')?.id).toBe(a.id);
    expect(h.sessions.find('abcd-1')?.id).toBe(a.id);
    expect(() => h.sessions.find('abcd')).toThrow(/more than one session/);
    expect(h.sessions.find('abc')).toBeUndefined();
    expect(h.sessions.find('ab%')).toBeUndefined();
  });

  it('a unique prefix of the agent id finds the session too; a prefix shared across both ids is ambiguous', () => {
    const h = makeHarness(place());
    const a = h.store.sessions.create({
      id: 'f00d-1111',
      provider: 'demo',
      cwd: '/w',
      agentSessionId: '7c3e9a10-agent',
    });
    const b = h.store.sessions.create({ id: 'beef-2222', provider: 'demo', cwd: '/w', agentSessionId: 'f00d-agent' });
    expect(h.sessions.find('7c3e9a')?.id).toBe(a.id);
    expect(h.sessions.find('beef')?.id).toBe(b.id);
    expect(() => h.sessions.find('f00d')).toThrow(/more than one session/);
  });
});
