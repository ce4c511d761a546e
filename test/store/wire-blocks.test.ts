import { describe, it, expect } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import { FramePacker, packFrames, unpackFrames } from '../../src/store/wire-blocks.js';
import { BACKENDS } from './backends.js';

const cols = (from: number, n: number) => {
  const c = { t: [] as number[], dir: [] as string[], line: [] as string[] };
  for (let i = from; i < from + n; i++) {
    c.t.push(i + 0.25);
    c.dir.push(i % 3 === 0 ? 'client->agent' : 'agent->client');
    // Lines of varied length, non-ASCII and escapes included.
    c.line.push(JSON.stringify({ i, s: 'é€😀\n'.repeat(i % 4) }));
  }
  return c;
};
const rowsOf = (from: number, n: number) => {
  const c = cols(from, n);
  return c.line.map((msg, k) => ({ seq: from + k, t_ms: c.t[k], dir: c.dir[k], msg }));
};
const frame = (i: number): Frame => {
  const msg = { jsonrpc: '2.0', method: 'x', params: { i } };
  return { t_ms: i + 0.25, dir: 'agent->client', msg, raw: JSON.stringify(msg) } as Frame;
};

describe('wire blocks', () => {
  it('pack and unpack are inverse', () => {
    const c = cols(1, 20);
    expect(unpackFrames(packFrames(c))).toEqual(c);
  });

  it('frames packed as they arrive are the batch packFrames makes, batch after batch', () => {
    const p = new FramePacker();
    for (const [from, n] of [
      [1, 20],
      [21, 300], // past the first room and column sizes
      [321, 1],
    ] as const) {
      const c = cols(from, n);
      for (let i = 0; i < n; i++) p.add(c.t[i]!, c.dir[i]!, c.line[i]!);
      expect(p.count).toBe(n);
      const packed = p.take();
      expect(packed).toEqual(packFrames(c));
      expect(unpackFrames(packed)).toEqual(c);
      expect(p.count).toBe(0);
    }
    expect(unpackFrames(p.take())).toEqual({ t: [], dir: [], line: [] });
  });

  it('a packer keeps an odd direction by position, measures a huge line exactly, and clear drops what it held', () => {
    const p = new FramePacker();
    const huge = JSON.stringify({ s: '😀'.repeat(600_000) });
    p.add(1, 'agent->client', '{"a":1}');
    p.clear();
    p.add(2, 'sideways', '{"b":"é"}');
    p.add(3, 'client->agent', huge);
    const packed = p.take();
    expect(packed.odd).toEqual({ 0: 'sideways' });
    expect([...packed.len]).toEqual([Buffer.byteLength('{"b":"é"}'), Buffer.byteLength(huge)]);
    expect(unpackFrames(packed).line).toEqual(['{"b":"é"}', huge]);
  });

  it('a batch of huge lines packs the same (measured line by line, not into room for the worst case)', () => {
    const big = (ch: string) => JSON.stringify({ s: ch.repeat(300_000) });
    const c = {
      t: [1, 2, 3],
      dir: ['agent->client', 'client->agent', 'agent->client'],
      line: [big('é'), big('a'), big('😀')],
    };
    const p = packFrames(c);
    expect([...p.len]).toEqual(c.line.map((l) => Buffer.byteLength(l)));
    expect(p.bytes.length).toBe(p.len.reduce((a, b) => a + b, 0));
    expect(unpackFrames(p)).toEqual(c);
  });

  it('packed bytes are exactly the lines, in memory of their own size (what crosses to the writer thread)', () => {
    const line = JSON.stringify({ s: 'x'.repeat(100) });
    const c = {
      t: Array.from({ length: 100 }, (_, i) => i),
      dir: Array.from({ length: 100 }, () => 'agent->client'),
      line: Array.from({ length: 100 }, () => line),
    };
    const p = packFrames(c);
    expect(p.bytes.length).toBe(100 * line.length);
    expect(p.bytes.buffer.byteLength).toBe(p.bytes.length); // not the room for 3 bytes a character it was encoded into
    expect(Buffer.from(p.bytes).toString('utf8')).toBe(c.line.join(''));
  });

  it('a small batch is not a slice of the shared Buffer pool (Buffer.from pools it: under 4 KiB on Node 20, under 32 KiB on 24)', () => {
    for (const size of [1, 100, 3000, 20_000]) {
      const line = 'y'.repeat(size);
      const p = packFrames({ t: [1], dir: ['client->agent'], line: [line] });
      expect(p.bytes.buffer.byteLength, `${size} bytes`).toBe(size);
      expect(p.bytes.byteOffset).toBe(0);
    }
    expect(packFrames({ t: [], dir: [], line: [] }).bytes.length).toBe(0);
  });
});

describe.each(BACKENDS)('wire blocks stored ($name)', (backend) => {
  it('a block reads back frame by frame; blocks and per-frame rows merge by seq for every read', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const tx = (fn: () => number) => store.transaction(fn);
    // rows 1–2, block 3–12, row 13, block 14–14, block 15–40, row 41.
    store.wire.append('s', [frame(1), frame(2)]);
    expect(tx(() => store.wire.insertBlock('s', store.wire.lastSeq('s'), packFrames(cols(3, 10))))).toBe(12);
    store.wire.append('s', frame(13));
    tx(() => store.wire.insertBlock('s', store.wire.lastSeq('s'), packFrames(cols(14, 1))));
    tx(() => store.wire.insertBlock('s', store.wire.lastSeq('s'), packFrames(cols(15, 26))));
    expect(tx(() => store.wire.insertBlock('s', 40, packFrames(cols(41, 0))))).toBe(40); // nothing to store
    store.wire.append('s', frame(41));
    const asRow = (i: number) => ({ seq: i, t_ms: i + 0.25, dir: 'agent->client', msg: frame(i).raw });
    const all = [asRow(1), asRow(2), ...rowsOf(3, 10), asRow(13), ...rowsOf(14, 1), ...rowsOf(15, 26), asRow(41)];
    expect(store.wire.lastSeq('s')).toBe(41);
    expect(store.wire.count('s')).toBe(41);
    expect(store.wire.rows('s')).toEqual(all);
    // Every window: from any seq, any limit.
    for (const from of [0, 1, 2, 3, 7, 12, 13, 14, 15, 30, 40, 41, 42])
      for (const limit of [1, 2, 5, 11, 100])
        expect(store.wire.rows('s', { fromSeq: from, limit })).toEqual(
          all.filter((r) => r.seq >= from).slice(0, limit),
        );
    // Breaking out of an iteration early leaves the connection usable.
    for (const r of store.wire.iterate('s', { fromSeq: 5 })) if (r.seq === 6) break;
    expect(store.wire.read('s').map((l) => l.msg)).toEqual(all.map((r) => JSON.parse(r.msg)));
    expect(store.wire.exportNdjson('s').split('\n')).toHaveLength(42);
  });

  it('refuses a bad direction: the transaction writes nothing', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const bad = cols(1, 5);
    bad.dir[3] = 'sideways';
    expect(() => store.transaction(() => store.wire.insertBlock('s', 0, packFrames(bad)))).toThrow(
      /direction "sideways"/,
    );
    expect(store.wire.count('s')).toBe(0);
  });

  it('blocks for an unknown session are refused (foreign key)', () => {
    const store = backend.fresh();
    expect(() => store.transaction(() => store.wire.insertBlock('ghost', 0, packFrames(cols(1, 2))))).toThrow(
      /FOREIGN KEY/,
    );
  });
});
