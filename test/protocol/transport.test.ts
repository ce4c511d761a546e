import { describe, it, expect } from 'vitest';
import { PassThrough, Writable } from 'node:stream';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createTransport, checkMessage } from '../../src/protocol/transport.js';
import { ConnectionClosedError } from '../../src/protocol/errors.js';
import { parseWireLog } from '../../src/protocol/wire-log.js';
import type { Frame, ProtocolErrorEvent, RawMessage } from '../../src/protocol/types.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2/', import.meta.url));

const update = (i: number) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 's',
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `t${i}` } },
  },
});
const line = (m: unknown) => JSON.stringify(m) + '\n';

function pair(extra: Partial<Parameters<typeof createTransport>[0]> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  output.on('data', (c: Buffer) => written.push(c.toString()));
  const t = createTransport({ input, output, ...extra });
  return { input, output, written, t, reader: t.stream.readable.getReader() };
}

describe('transport: divert', () => {
  it('diverts 1,000 session/update before the response that follows reaches the SDK side', async () => {
    let diverted = 0;
    const { input, reader } = pair({
      divert: (m) => {
        if (m.method !== 'session/update') return false;
        diverted++;
        return true;
      },
    });
    // Many chunks, boundaries inside frames: the guarantee must not depend on chunking.
    const text =
      Array.from({ length: 1000 }, (_, i) => line(update(i))).join('') +
      line({ jsonrpc: '2.0', id: 7, result: { stopReason: 'end_turn' } });
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 4093) input.write(bytes.subarray(i, i + 4093));
    const { value } = await reader.read();
    expect(value).toEqual({ jsonrpc: '2.0', id: 7, result: { stopReason: 'end_turn' } });
    expect(diverted).toBe(1000);
  });

  it('calls divert for every valid inbound message in arrival order; only non-diverted ones are enqueued', async () => {
    const seen: unknown[] = [];
    const { input, reader } = pair({
      divert: (m) => {
        seen.push(m.id ?? m.method);
        return m.method === 'session/update';
      },
    });
    input.write(
      line(update(1)) +
        line({ jsonrpc: '2.0', id: 1, result: {} }) +
        line(update(2)) +
        line({ jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: {} }),
    );
    input.end();
    const got: RawMessage[] = [];
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      got.push(r.value);
    }
    expect(seen).toEqual(['session/update', 1, 'session/update', 2]);
    expect(got.map((m) => m.id)).toEqual([1, 2]);
  });

  it('divert installed later through setHooks takes effect', async () => {
    const { input, t, reader } = pair();
    let n = 0;
    t.setHooks({ divert: () => (n++, true) });
    input.write(line(update(1)) + line({ jsonrpc: '2.0', id: 3, result: null }));
    t.setHooks({ divert: undefined });
    input.write(line({ jsonrpc: '2.0', id: 4, result: null }));
    expect((await reader.read()).value?.id).toBe(4);
    expect(n).toBe(2);
  });

  it('a throwing hook is contained: the stream keeps going', async () => {
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => errors.push(m) };
    const { input, reader, t } = pair({
      divert: (m) => {
        if (m.id === 1) throw new Error('boom');
        return false;
      },
      logger,
    });
    input.write(line({ jsonrpc: '2.0', id: 1, result: 1 }) + line({ jsonrpc: '2.0', id: 2, result: 2 }));
    expect((await reader.read()).value?.id).toBe(2);
    expect(errors).toEqual(['transport hook threw']);
    expect(t.isClosed).toBe(false);
  });
});

describe('transport: read ends', () => {
  it('onReadEnd follows the lines of each read (a line split across reads counts in the read that ends it), and the end of input', async () => {
    const log: string[] = [];
    const { input } = pair({
      divert: (m) => (
        log.push(String((m.params as { update: { content: { text: string } } }).update.content.text)),
        true
      ),
      onReadEnd: () => log.push('|'),
    });
    const two = line(update(1)) + line(update(2));
    input.write(two + line(update(3)).slice(0, 10));
    await new Promise((r) => setImmediate(r));
    input.write(line(update(3)).slice(10));
    await new Promise((r) => setImmediate(r));
    input.end();
    await new Promise((r) => setImmediate(r));
    expect(log.join(' ')).toBe('t1 t2 | t3 | |');
  });

  it('a throwing onReadEnd is contained, and one installed through setHooks takes effect', async () => {
    let ends = 0;
    const { input, t } = pair({
      divert: () => true,
      onReadEnd: () => {
        throw new Error('boom');
      },
    });
    input.write(line(update(1)));
    await new Promise((r) => setImmediate(r));
    t.setHooks({ onReadEnd: () => void ends++ });
    input.write(line(update(2)));
    await new Promise((r) => setImmediate(r));
    expect(ends).toBe(1);
  });
});

describe('transport: protocol errors', () => {
  it('reports non-JSON, too-large and invalid JSON-RPC lines and survives them', async () => {
    const events: ProtocolErrorEvent[] = [];
    const { input, reader, t } = pair({ maxLineBytes: 64, onProtocolError: (e) => events.push(e) });
    input.write(
      [
        'not json',
        '⚠️  Reached maximum iterations (90). Requesting summary...',
        '{"jsonrpc":"2.0","method":"x","params":"' + 'y'.repeat(100) + '"}',
        '[{"jsonrpc":"2.0","method":"a"}]',
        '42',
        'null',
        '{"id":1,"result":{}}',
        '{"jsonrpc":"2.0"}',
        '{"jsonrpc":"2.0","method":7}',
        '{"jsonrpc":"2.0","id":{},"method":"m"}',
        '{"jsonrpc":"2.0","method":"m","result":1}',
        '   ',
        '',
        '{"jsonrpc":"2.0","id":5,"result":"ok"}',
      ].join('\n') + '\n',
    );
    const { value } = await reader.read();
    expect(value).toEqual({ jsonrpc: '2.0', id: 5, result: 'ok' });
    expect(events.map((e) => e.kind)).toEqual([
      'non_json',
      'non_json',
      'too_large',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
      'invalid_jsonrpc',
    ]);
    expect(events[0]).toEqual({ kind: 'non_json', preview: 'not json', bytes: 8 });
    expect(events[2]!.bytes).toBeGreaterThan(64);
    expect(events[3]!.detail).toMatch(/batch/);
    expect(t.isClosed).toBe(false);
    expect(t.stats.protocolErrors).toBe(11);
    expect(t.stats.framesIn).toBe(1);
  });

  it('a malformed response to an id is reported and still handed on (so a waiting request can fail fast)', async () => {
    const events: ProtocolErrorEvent[] = [];
    const frames: Frame[] = [];
    const { input, reader } = pair({ onProtocolError: (e) => events.push(e), onFrame: (f) => frames.push(f) });
    input.write('{"jsonrpc":"2.0","id":9}\n');
    expect((await reader.read()).value).toEqual({ jsonrpc: '2.0', id: 9 });
    expect(events).toHaveLength(1);
    expect(frames).toEqual([]); // only valid frames are tapped
  });

  it('checkMessage accepts the three valid shapes', () => {
    expect(checkMessage({ jsonrpc: '2.0', id: 1, method: 'm' })).toBeUndefined();
    expect(checkMessage({ jsonrpc: '2.0', id: null, method: 'm' })).toBeUndefined();
    expect(checkMessage({ jsonrpc: '2.0', method: 'm' })).toBeUndefined();
    expect(checkMessage({ jsonrpc: '2.0', id: 'a', result: null })).toBeUndefined();
    expect(checkMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toBeUndefined();
    expect(checkMessage({ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } })).toBeDefined();
    expect(checkMessage({ jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } })).toBeDefined();
  });
});

describe('transport: frames and writes', () => {
  it('taps inbound and outbound frames in wire order with t_ms since open', async () => {
    let clock = 1000;
    const frames: Frame[] = [];
    const { input, written, t } = pair({ now: () => clock, onFrame: (f) => frames.push(f) });
    clock = 1005;
    await t.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    clock = 1012;
    input.write(line({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }));
    clock = 1020;
    const w = t.stream.writable.getWriter();
    await w.write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } });
    expect(frames.map((f) => [f.dir, f.t_ms, f.msg.id ?? f.msg.method])).toEqual([
      ['client->agent', 5, 0],
      ['agent->client', 12, 0],
      ['client->agent', 20, 'session/cancel'],
    ]);
    expect(written.join('')).toBe(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}\n',
    );
    expect(t.stats.framesOut).toBe(2);
  });

  it('each tapped frame carries its line: inbound as received (spacing kept), outbound as written', async () => {
    const frames: Frame[] = [];
    const { input, written, t } = pair({ onFrame: (f) => frames.push(f) });
    const received = '{ "jsonrpc":"2.0",  "method":"session/update","params":{"z":1,"a":"\\u00e9"} }';
    input.write(received + '\r\n');
    await t.send({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's' } });
    expect(frames.map((f) => f.raw)).toEqual([received, written.join('').trimEnd()]);
    expect(JSON.parse(frames[0]!.raw)).toEqual(frames[0]!.msg);
  });

  it('respects output backpressure: send resolves only after drain', async () => {
    const input = new PassThrough();
    const callbacks: (() => void)[] = [];
    const output = new Writable({ highWaterMark: 4, write: (_c, _e, cb) => void callbacks.push(cb) });
    const t = createTransport({ input, output });
    let sent = false;
    const p = t.send({ jsonrpc: '2.0', method: 'x' }).then(() => (sent = true));
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(false);
    callbacks.shift()!();
    await p;
    expect(sent).toBe(true);
  });

  it('pauses input while the SDK side is full and resumes as it reads', async () => {
    const { input, reader } = pair({ highWaterMark: 2 });
    input.write(Array.from({ length: 10 }, (_, i) => line({ jsonrpc: '2.0', id: i, result: i })).join(''));
    input.write(line({ jsonrpc: '2.0', id: 10, result: 10 }));
    expect(input.isPaused()).toBe(true);
    const ids: unknown[] = [];
    while (ids.length < 11) ids.push((await reader.read()).value?.id);
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('replays every recorded Hermes fixture: all agent frames tapped, every session/update diverted', async () => {
    for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith('.ndjson'))) {
      const lines = parseWireLog(readFileSync(join(FIXTURES, name), 'utf8')).filter((l) => l.dir === 'agent->client');
      const frames: Frame[] = [];
      let updates = 0;
      const { input, reader, t } = pair({
        onFrame: (f) => frames.push(f),
        divert: (m) => m.method === 'session/update' && ++updates > 0,
      });
      input.end(lines.map((l) => line(l.msg)).join(''));
      let rest = 0;
      while (!(await reader.read()).done) rest++;
      expect((await t.closed).cause).toBe('eof');
      expect(frames.map((f) => f.msg)).toEqual(lines.map((l) => l.msg));
      expect(updates).toBe(lines.filter((l) => l.msg.method === 'session/update').length);
      expect(rest + updates).toBe(lines.length);
    }
  });
});

describe('transport: close causes', () => {
  it("input EOF → 'eof'; messages already queued still reach the reader", async () => {
    const { input, reader, t } = pair();
    input.end(line({ jsonrpc: '2.0', id: 1, result: 'last' }) + '{"jsonrpc":"2.0","id":2,"result":"no newline"}');
    expect(await t.closed).toEqual({ cause: 'eof' });
    expect((await reader.read()).value?.result).toBe('last');
    expect((await reader.read()).value?.result).toBe('no newline');
    expect((await reader.read()).done).toBe(true);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("input error → 'stream_error' with the error", async () => {
    const { input, t } = pair();
    input.destroy(new Error('read EIO'));
    const info = await t.closed;
    expect(info.cause).toBe('stream_error');
    expect(info.error?.message).toBe('read EIO');
  });

  it("output error → 'stream_error'; later output errors do not throw", async () => {
    const { output, t } = pair();
    output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect((await t.closed).cause).toBe('stream_error');
    output.emit('error', new Error('again')); // would be an uncaught exception without a listener
    const err = await t.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as ConnectionClosedError).details).toMatchObject({ cause: 'stream_error' });
    expect((err as ConnectionClosedError).cause).toMatchObject({ message: 'write EPIPE', code: 'EPIPE' });
  });

  it("close() → 'closed', ends the output, stops delivering", async () => {
    const { input, output, reader, t } = pair();
    let ended = false;
    output.on('end', () => (ended = true));
    t.close();
    t.close();
    expect(await t.closed).toEqual({ cause: 'closed' });
    input.write(line({ jsonrpc: '2.0', id: 1, result: 1 }));
    expect((await reader.read()).done).toBe(true);
    await new Promise((r) => output.once('end', r).resume());
    expect(ended).toBe(true);
  });
});

describe('a throwing tap', () => {
  it('does not cost the session its frame', async () => {
    const diverted: unknown[] = [];
    const { input, reader } = pair({
      onFrame: () => {
        throw new Error('tap broke');
      },
      divert: (m) => (m.method === 'session/update' ? (diverted.push(m), true) : false),
    });
    input.write(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}\n',
    );
    input.write('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}\n');
    const { value } = await reader.read();
    expect(value).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
    expect(diverted).toHaveLength(1);
  });
});
