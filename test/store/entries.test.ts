import { describe, it, expect } from 'vitest';
import { createThread, reduce, snapshot, threadFromSnapshot, toMarkdown } from '../../src/thread/index.js';
import type { Entry } from '../../src/thread/types.js';
import { parseWireLog } from '../../src/protocol/wire-log.js';
import { readFixture } from './helpers.js';
import { DEFLATE_FROM } from '../../src/store/entries.js';
import { BACKENDS } from './backends.js';

const msg = (id: string, text: string): Entry => ({
  id,
  kind: 'assistant_message',
  text,
  blocks: [],
  turnId: 'turn-1',
});

/** A real thread: the recorded Hermes tool session reduced through the real reducer. */
function fixtureThread() {
  const thread = createThread();
  for (const l of parseWireLog(readFixture('tools.ndjson'))) {
    const p = l.msg.params as { update?: { sessionUpdate: string } } | undefined;
    if (l.msg.method === 'session/update' && p?.update) reduce(thread, { type: 'update', update: p.update });
  }
  return thread;
}

describe.each(BACKENDS)('entries ($name)', (backend) => {
  it('upsert replaces the entry at an index in place', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.entries.upsert('s', 0, msg('e1', 'Hel'));
    store.entries.upsert('s', 1, { id: 'e2', kind: 'notice', level: 'info', code: 'x', text: 'n' });
    store.entries.upsert('s', 0, msg('e1', 'Hello'));
    store.entries.upsertMany('s', [
      { index: 0, entry: msg('e1', 'Hello world') },
      { index: 2, entry: msg('e3', 'more') },
    ]);
    expect(store.entries.count('s')).toBe(3);
    expect(store.entries.list('s')).toEqual([
      msg('e1', 'Hello world'),
      { id: 'e2', kind: 'notice', level: 'info', code: 'x', text: 'n' },
      msg('e3', 'more'),
    ]);
    const [row] = backend.sql(
      store,
      'SELECT entry_id, kind, turn_id FROM entries WHERE session_id = ? AND idx = 0',
      's',
    );
    expect(row).toEqual({ entry_id: 'e1', kind: 'assistant_message', turn_id: 'turn-1' });
  });

  it('a row of DEFLATE_FROM or more is stored deflated and reads back the same, tails and all', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const words = Array.from({ length: 40_000 }, (_, i) => `word${(i * 7919) % 1000} é→`).join(' ');
    store.entries.upsert('s', 0, msg('e1', 'small'));
    store.entries.upsert('s', 1, msg('e2', words));
    store.entries.upsertJson('s', 2, 'e3', 'assistant_message', 'turn-1', JSON.stringify(msg('e3', words)), 1);
    store.entries.appendTail('s', 1, 'e2', ' and more');
    expect(store.entries.list('s')).toEqual([msg('e1', 'small'), msg('e2', words + ' and more'), msg('e3', words)]);
    expect(words.length).toBeGreaterThan(DEFLATE_FROM);
    if (backend.name === 'postgres') {
      // PostgreSQL compresses a big value itself (TOAST): the row stays text.
      const big = backend.sql(store, 'SELECT pg_column_compression(json) AS c FROM entries WHERE idx = 1')[0];
      expect(big?.c).toMatch(/pglz|lz4/);
      return;
    }
    const cells = backend.sql(
      store,
      'SELECT typeof(json) AS t, length(json) AS n FROM entries WHERE session_id = ? ORDER BY idx',
      's',
    ) as { t: string; n: number }[];
    expect(cells.map((c) => c.t)).toEqual(['text', 'blob', 'blob']);
    expect(cells[1]!.n).toBeLessThan(words.length / 2);
  });

  it('tails (text appended since the row was written) are read onto their entry; a full write drops them', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.entries.upsert('s', 0, msg('e1', 'Hel'));
    store.entries.upsert('s', 1, msg('e2', 'Wor'));
    store.entries.appendTail('s', 0, 'e1', 'lo');
    store.entries.appendTail('s', 1, 'e2', 'ld');
    store.entries.appendTail('s', 0, 'e1', ' there');
    // A tail of another entry (the row was replaced since) is stale: not read.
    store.entries.appendTail('s', 1, 'e-old', 'XX');
    expect(store.entries.list('s')).toEqual([msg('e1', 'Hello there'), msg('e2', 'World')]);
    expect(store.entries.loadSnapshot('s')!.entries.map((e) => (e as { text: string }).text)).toEqual([
      'Hello there',
      'World',
    ]);
    store.entries.upsert('s', 0, msg('e1', 'Hello there!'));
    store.entries.upsertJson('s', 1, 'e2', 'assistant_message', 'turn-1', JSON.stringify(msg('e2', 'World.')), 1);
    expect(backend.sql(store, 'SELECT COUNT(*) AS n FROM entry_tails')[0]).toEqual({ n: 0 });
    expect(store.entries.list('s')).toEqual([msg('e1', 'Hello there!'), msg('e2', 'World.')]);
    store.entries.appendTail('s', 1, 'e2', '..');
    store.entries.saveSnapshot('s', { entries: [msg('e1', 'x')], plan: null, availableCommands: [], context: {} });
    expect(backend.sql(store, 'SELECT COUNT(*) AS n FROM entry_tails')[0]).toEqual({ n: 0 });
    store.entries.appendTail('s', 0, 'e1', 'y');
    store.entries.clear('s');
    expect(backend.sql(store, 'SELECT COUNT(*) AS n FROM entry_tails')[0]).toEqual({ n: 0 });
  });

  it('a damaged row comes back as an unknown entry, never dropped', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    backend.sql(store, "INSERT INTO entries VALUES ('s', 0, 'e1', 'thought', NULL, '{oops', 0)");
    expect(store.entries.list('s')).toEqual([
      { id: 'e0', kind: 'unknown', sessionUpdate: 'damaged_row', raw: '{oops' },
    ]);
  });

  it('saves and loads a real thread snapshot; the rebuilt thread renders the same Markdown', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'hermes', cwd: '/' });
    expect(store.entries.loadSnapshot('s')).toBeUndefined();
    const thread = fixtureThread();
    thread.title = 'Tools';
    expect(thread.entries.length).toBeGreaterThan(3);
    const snap = snapshot(thread);
    store.entries.saveSnapshot('s', snap);
    const loaded = store.entries.loadSnapshot('s')!;
    expect(loaded).toEqual(JSON.parse(JSON.stringify(snap)));
    expect(toMarkdown(threadFromSnapshot(loaded))).toBe(toMarkdown(thread));
  });

  it('saving a shorter snapshot trims the extra rows; clear removes entries and meta only', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.wire.append('s', { t_ms: 0, dir: 'client->agent', msg: { method: 'x' } });
    store.entries.saveSnapshot('s', {
      entries: [msg('e1', 'a'), msg('e2', 'b'), msg('e3', 'c')],
      plan: null,
      availableCommands: [],
      context: {},
    });
    store.entries.saveSnapshot('s', {
      entries: [msg('e1', 'A')],
      plan: [{ content: 'step' }],
      availableCommands: [],
      context: { used: 5 },
      currentModeId: 'code',
    });
    expect(store.entries.loadSnapshot('s')).toEqual({
      entries: [msg('e1', 'A')],
      plan: [{ content: 'step' }],
      availableCommands: [],
      context: { used: 5 },
      currentModeId: 'code',
    });
    store.entries.clear('s');
    expect(store.entries.loadSnapshot('s')).toBeUndefined();
    expect(store.wire.count('s')).toBe(1);
  });

  it('entries without saved meta still load as a snapshot with defaults', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.entries.upsert('s', 0, msg('e1', 'x'));
    expect(store.entries.loadSnapshot('s')).toEqual({
      entries: [msg('e1', 'x')],
      plan: null,
      availableCommands: [],
      context: {},
    });
  });
});
