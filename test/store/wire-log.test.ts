import { describe, it, expect } from 'vitest';
import { parseWireLog, formatWireLine } from '../../src/protocol/wire-log.js';
import type { WireLogLine } from '../../src/protocol/types.js';
import { StoreError } from '../../src/store/index.js';
import { WIRE_ROWS_PER_INSERT } from '../../src/store/wire-log.js';
import { FIXTURE_NAMES, parsedLines, readFixture } from './helpers.js';
import { BACKENDS } from './backends.js';

const frame = (i: number, dir: WireLogLine['dir'] = 'agent->client'): WireLogLine => ({
  t_ms: i * 10,
  dir,
  msg: {
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 's',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${i} "quoted" \n ✓` } },
    },
  },
});

describe.each(BACKENDS)('wire log ($name)', (backend) => {
  it('appends in order and reads back as WireLogLine objects', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    expect(store.wire.lastSeq('s')).toBe(0);
    expect(store.wire.append('s', frame(1, 'client->agent'))).toBe(1);
    expect(store.wire.append('s', [frame(2), frame(3)])).toBe(3);
    expect(store.wire.count('s')).toBe(3);
    expect(store.wire.read('s')).toEqual([frame(1, 'client->agent'), frame(2), frame(3)]);
    expect(store.wire.read('s', { fromSeq: 2, limit: 1 })).toEqual([frame(2)]);
    expect(store.wire.rows('s').map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('exports NDJSON identical to formatWireLine of each frame (fixture format, trailing newline)', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const frames = [frame(1, 'client->agent'), frame(2)];
    store.wire.append('s', frames);
    const text = store.wire.exportNdjson('s');
    expect(text).toBe(frames.map(formatWireLine).join('\n') + '\n');
    expect(parseWireLog(text)).toEqual(frames);
    expect(store.wire.exportNdjson('nobody')).toBe('');
  });

  it('refuses a bad direction and rolls back the whole batch', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const bad = { t_ms: 0, dir: 'sideways', msg: {} } as unknown as WireLogLine;
    expect(() => store.wire.append('s', [frame(1), bad])).toThrow(StoreError);
    expect(store.wire.count('s')).toBe(0);
  });

  it('frames for an unknown session are refused (foreign key)', () => {
    const store = backend.fresh();
    expect(() => store.wire.append('ghost', frame(1))).toThrow(/FOREIGN KEY/);
  });

  it('insertRawMany: full multi-row blocks and the remainder, in order, after the given seq', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.wire.insertRaw('s', 1, 0, 'client->agent', '{"first":1}');
    const n = 2 * WIRE_ROWS_PER_INSERT + 5;
    const rows = Array.from({ length: n }, (_, i) => ({
      t: i + 0.5,
      dir: i % 3 === 0 ? 'client->agent' : 'agent->client',
      line: JSON.stringify({ i }),
    }));
    const cols = (rs: typeof rows) => ({
      t: rs.map((r) => r.t),
      dir: rs.map((r) => r.dir),
      line: rs.map((r) => r.line),
    });
    const last = store.transaction(() => store.wire.insertRawMany('s', store.wire.lastSeq('s'), cols(rows)));
    expect(last).toBe(n + 1);
    const stored = store.wire.rows('s');
    expect(stored).toHaveLength(n + 1);
    expect(stored.slice(1)).toEqual(rows.map((r, i) => ({ seq: i + 2, t_ms: r.t, dir: r.dir, msg: r.line })));
    // A bad row in a block fails the statement: the transaction writes nothing.
    const bad = [...rows.slice(0, WIRE_ROWS_PER_INSERT - 1), { t: 0, dir: 'sideways', line: '{}' }];
    expect(() => store.transaction(() => store.wire.insertRawMany('s', store.wire.lastSeq('s'), cols(bad)))).toThrow(
      /CHECK/,
    );
    expect(store.wire.count('s')).toBe(n + 1);
  });

  it('a damaged stored row reads back as an empty message instead of throwing', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.wire.insertRaw('s', 1, 5, 'agent->client', '{broken');
    expect(store.wire.read('s')).toEqual([{ t_ms: 5, dir: 'agent->client', msg: {} }]);
  });

  for (const name of FIXTURE_NAMES) {
    it(`round-trips the real fixture ${name} line by line`, () => {
      const store = backend.fresh();
      store.sessions.create({ id: 's', provider: 'hermes', cwd: '/' });
      const text = readFixture(name);
      const n = store.wire.appendFixture('s', text);
      const original = parsedLines(text);
      expect(n).toBe(original.length);
      const exported = store.wire.exportNdjson('s');
      const back = parsedLines(exported);
      expect(back.length).toBe(original.length);
      back.forEach((line, i) => expect(line, `line ${i + 1}`).toEqual(original[i]));
      expect(store.wire.read('s')).toEqual(original);
    });
  }
});
