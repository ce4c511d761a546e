import { describe, it, expect } from 'vitest';
import { BACKENDS, type Backend } from './backends.js';

function seeded(backend: Backend) {
  let t = 1000;
  const store = backend.fresh({ now: () => t++ });
  const ws = store.workspaces.ensure({ path: '/w/one' });
  const a = store.sessions.create({
    id: 'a',
    provider: 'hermes',
    cwd: '/w/one',
    workspaceId: ws.id,
    title: 'Fix the login bug',
    agentSessionId: 'h-1',
  });
  const b = store.sessions.create({ id: 'b', provider: 'claude', cwd: '/w/two', title: 'Write 50% of the docs' });
  const c = store.sessions.create({
    id: 'c',
    provider: 'hermes',
    cwd: '/w/one',
    workspaceId: ws.id,
    title: 'login page styling',
  });
  return { store, ws, a, b, c };
}

const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe.each(BACKENDS)('sessions ($name)', (backend) => {
  it('create and get round-trip every field', () => {
    const store = backend.fresh({ now: () => 42 });
    const ws = store.workspaces.ensure({ path: '/p' });
    const s = store.sessions.create({
      provider: 'hermes',
      profile: 'work',
      cwd: '/p',
      workspaceId: ws.id,
      title: 'T',
      agentSessionId: 'agent-9',
      agentInfo: { name: 'hermes-agent', version: '0.18.2' },
    });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s).toEqual({
      id: s.id,
      provider: 'hermes',
      profile: 'work',
      cwd: '/p',
      workspaceId: ws.id,
      title: 'T',
      agentSessionId: 'agent-9',
      agentInfo: { name: 'hermes-agent', version: '0.18.2' },
      archived: false,
      createdAt: 42,
      updatedAt: 42,
    });
    expect(store.sessions.get(s.id)).toEqual(s);
    expect(store.sessions.findByAgentId('hermes', 'agent-9')?.id).toBe(s.id);
    expect(store.sessions.findByAgentId('claude', 'agent-9')).toBeUndefined();
    expect(store.sessions.get('missing')).toBeUndefined();
  });

  it('a session pointing at an unknown workspace is refused (foreign keys are on)', () => {
    const store = backend.fresh();
    expect(() => store.sessions.create({ provider: 'x', cwd: '/', workspaceId: 'nope' })).toThrow(/FOREIGN KEY/);
  });

  it('lists most recently active first, filtered by workspace, provider, cwd and title text', () => {
    const { store, ws } = seeded(backend);
    expect(ids(store.sessions.list())).toEqual(['c', 'b', 'a']);
    store.sessions.touch('a', 5000);
    expect(ids(store.sessions.list())).toEqual(['a', 'c', 'b']);
    expect(ids(store.sessions.list({ workspaceId: ws.id }))).toEqual(['a', 'c']);
    expect(ids(store.sessions.list({ provider: 'claude' }))).toEqual(['b']);
    expect(ids(store.sessions.list({ cwd: '/w/one', provider: 'hermes' }))).toEqual(['a', 'c']);
    expect(ids(store.sessions.list({ search: 'LOGIN' }))).toEqual(['a', 'c']);
    // LIKE wildcards in the search are literal characters.
    expect(ids(store.sessions.list({ search: '50%' }))).toEqual(['b']);
    expect(ids(store.sessions.list({ search: '%' }))).toEqual(['b']);
    expect(ids(store.sessions.list({ search: '_' }))).toEqual([]);
    expect(ids(store.sessions.list({ limit: 2 }))).toEqual(['a', 'c']);
    expect(ids(store.sessions.list({ limit: 2, offset: 1 }))).toEqual(['c', 'b']);
    expect(ids(store.sessions.list({ offset: 2 }))).toEqual(['b']);
  });

  it('archive hides from the default listing, unarchive restores, nothing is deleted', () => {
    const { store } = seeded(backend);
    store.wire.append('a', { t_ms: 0, dir: 'client->agent', msg: { jsonrpc: '2.0', id: 1, method: 'initialize' } });
    store.entries.upsert('a', 0, { id: 'e1', kind: 'user_message', text: 'hi', blocks: [] });
    expect(store.sessions.archive('a')).toBe(true);
    expect(ids(store.sessions.list())).toEqual(['c', 'b']);
    expect(ids(store.sessions.list({ search: 'login' }))).toEqual(['c']);
    expect(ids(store.sessions.list({ includeArchived: true }))).toEqual(['c', 'b', 'a']);
    expect(ids(store.sessions.list({ archivedOnly: true }))).toEqual(['a']);
    // Still there, with its history.
    expect(store.sessions.get('a')?.archived).toBe(true);
    expect(store.wire.count('a')).toBe(1);
    expect(store.entries.count('a')).toBe(1);
    expect(store.sessions.unarchive('a')).toBe(true);
    expect(ids(store.sessions.list())).toEqual(['c', 'b', 'a']);
    expect(store.sessions.get('a')?.archived).toBe(false);
    expect(store.wire.count('a')).toBe(1);
    expect(store.sessions.archive('missing')).toBe(false);
    expect(store.sessions.unarchive('missing')).toBe(false);
  });

  it('update patches (null clears), setTitle and touch stamp the row', () => {
    const { store } = seeded(backend);
    const u = store.sessions.update('b', { agentSessionId: 'c-7', profile: 'p', title: null, agentInfo: { v: 2 } });
    expect(u).toMatchObject({ agentSessionId: 'c-7', profile: 'p', agentInfo: { v: 2 } });
    expect(u!.title).toBeUndefined();
    expect(store.sessions.update('b', { agentInfo: null })!.agentInfo).toBeUndefined();
    expect(store.sessions.update('b', {})!.agentSessionId).toBe('c-7');
    expect(store.sessions.setTitle('b', 'New title', 9000)).toBe(true);
    expect(store.sessions.get('b')).toMatchObject({ title: 'New title', updatedAt: 9000 });
    expect(store.sessions.touch('b', 9500)).toBe(true);
    expect(store.sessions.get('b')).toMatchObject({ lastActiveAt: 9500, updatedAt: 9500 });
    expect(store.sessions.update('missing', { title: 'x' })).toBeUndefined();
    expect(store.sessions.touch('missing')).toBe(false);
  });
});
