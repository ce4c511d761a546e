import { describe, it, expect } from 'vitest';
import {
  DEFAULT_MAX_LINE_BYTES,
  GarbageMeter,
  LineDecoder,
  mayBeJson,
  type OversizeLine,
} from '../../src/protocol/ndjson.js';

function collect(maxLineBytes?: number) {
  const lines: string[] = [];
  const oversize: OversizeLine[] = [];
  const d = new LineDecoder({ maxLineBytes, onLine: (l) => lines.push(l), onOversize: (o) => oversize.push(o) });
  return { d, lines, oversize };
}

describe('LineDecoder', () => {
  it('splits lines inside one chunk and across chunk boundaries', () => {
    const { d, lines } = collect();
    d.push(Buffer.from('{"a":1}\n{"b":'));
    expect(lines).toEqual(['{"a":1}']);
    d.push(Buffer.from('2}'));
    d.push(Buffer.from('\n{"c":3}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(d.pendingBytes).toBe(0);
  });

  it('feeds byte by byte', () => {
    const { d, lines } = collect();
    const text = '{"x":"héllo ✓ 𝄞"}\n{"y":2}\n';
    for (const b of Buffer.from(text)) d.push(Buffer.from([b]));
    expect(lines).toEqual(['{"x":"héllo ✓ 𝄞"}', '{"y":2}']);
  });

  it('strips CR of CRLF and skips empty lines', () => {
    const { d, lines } = collect();
    d.push(Buffer.from('a\r\n\r\n\n\nb\r'));
    d.push(Buffer.from('\nc'));
    expect(lines).toEqual(['a', 'b']);
    d.end();
    expect(lines).toEqual(['a', 'b', 'c']);
  });

  it('decodes a chunk that mixes ASCII and non-ASCII lines, CRLF and blank lines included', () => {
    // All-ASCII chunks are decoded whole, others line by line: both give the same lines.
    const { d, lines } = collect();
    d.push(Buffer.from('{"a":"plain"}\r\n\n{"b":"fix — ok"}\n\r\n{"c":"é"}\r\n{"d":1}\n{"e":'));
    d.push(Buffer.from('"ascii"}\r\n{"f":2}\n'));
    expect(lines).toEqual(['{"a":"plain"}', '{"b":"fix — ok"}', '{"c":"é"}', '{"d":1}', '{"e":"ascii"}', '{"f":2}']);
  });

  it('keeps a multi-byte UTF-8 character split across chunks intact', () => {
    const { d, lines } = collect();
    const buf = Buffer.from('{"t":"€𝄞"}\n');
    // Split inside the 3-byte € and inside the 4-byte 𝄞.
    const euro = buf.indexOf(0xe2);
    const clef = buf.indexOf(0xf0);
    d.push(buf.subarray(0, euro + 1));
    d.push(buf.subarray(euro + 1, clef + 2));
    d.push(buf.subarray(clef + 2));
    expect(lines).toEqual(['{"t":"€𝄞"}']);
    expect(JSON.parse(lines[0]!).t).toBe('€𝄞');
  });

  it('copies the carried tail, so a caller reusing its buffer cannot corrupt a line', () => {
    const { d, lines } = collect();
    const shared = Buffer.from('{"a":');
    d.push(shared);
    shared.fill(0x78); // "xxxxx"
    d.push(Buffer.from('1}\n'));
    expect(lines).toEqual(['{"a":1}']);
  });

  it('drops a line longer than a small max — whole in one chunk — and keeps going', () => {
    const { d, lines, oversize } = collect(16);
    d.push(Buffer.from('short\n' + 'x'.repeat(40) + '\nafter\n'));
    expect(lines).toEqual(['short', 'after']);
    expect(oversize).toEqual([{ bytes: 40, preview: 'x'.repeat(40) }]);
  });

  it('drops a too-long line spread over many chunks without holding it', () => {
    const { d, lines, oversize } = collect(16);
    d.push(Buffer.from('ok1\nAAAAAAAAAA'));
    d.push(Buffer.from('BBBBBBBBBB')); // 20 bytes pending > 16: discarding starts
    expect(d.pendingBytes).toBe(0);
    d.push(Buffer.from('CCCCCCCCCC'));
    d.push(Buffer.from('DD\nok2\n'));
    expect(lines).toEqual(['ok1', 'ok2']);
    expect(oversize).toHaveLength(1);
    expect(oversize[0]!.bytes).toBe(32);
    expect(oversize[0]!.preview.startsWith('AAAAAAAAAA')).toBe(true);
  });

  it('reports a carried line that only becomes too long at its newline', () => {
    const { d, lines, oversize } = collect(16);
    d.push(Buffer.from('0123456789'));
    d.push(Buffer.from('0123456789\nnext\n'));
    expect(lines).toEqual(['next']);
    expect(oversize).toEqual([{ bytes: 20, preview: '01234567890123456789' }]);
  });

  it('a line of exactly max bytes is kept', () => {
    const { d, lines, oversize } = collect(8);
    d.push(Buffer.from('12345678\n1234'));
    d.push(Buffer.from('5678\n'));
    expect(lines).toEqual(['12345678', '12345678']);
    expect(oversize).toEqual([]);
  });

  it('reports an oversize last line at end()', () => {
    const { d, lines, oversize } = collect(4);
    d.push(Buffer.from('abcdefgh'));
    d.end();
    expect(lines).toEqual([]);
    expect(oversize).toHaveLength(1);
    expect(oversize[0]!.bytes).toBe(8);
  });

  it('drops one real line over the default 32 MiB limit and still parses the next line', () => {
    const { d, lines, oversize } = collect();
    expect(d.maxLineBytes).toBe(DEFAULT_MAX_LINE_BYTES);
    const chunk = Buffer.alloc(1024 * 1024, 0x61); // 1 MiB of "a"
    d.push(Buffer.from('{"before":true}\n{"big":"'));
    for (let i = 0; i < 33; i++) {
      d.push(chunk);
      // Never holds more than the limit while the line grows.
      expect(d.pendingBytes).toBeLessThanOrEqual(DEFAULT_MAX_LINE_BYTES);
    }
    d.push(Buffer.from('"}\n{"after":true}\n'));
    expect(lines).toEqual(['{"before":true}', '{"after":true}']);
    expect(oversize).toHaveLength(1);
    expect(oversize[0]!.bytes).toBe(8 + 33 * 1024 * 1024 + 2);
    expect(oversize[0]!.preview.startsWith('{"big":"aaa')).toBe(true);
  });

  it('rejects a non-positive max', () => {
    expect(() => new LineDecoder({ maxLineBytes: 0, onLine: () => {} })).toThrow(RangeError);
  });
});

describe('LineDecoder.stop', () => {
  it('drops the rest of the current chunk and every later one', () => {
    const lines: string[] = [];
    const d = new LineDecoder({ onLine: (l) => (lines.push(l), l === 'stop' && d.stop()) });
    d.push(Buffer.from('a\nstop\nb\nc'));
    d.push(Buffer.from('\nd\n'));
    d.end();
    expect(lines).toEqual(['a', 'stop']);
    expect(d.pendingBytes).toBe(0);
  });
});

describe('mayBeJson', () => {
  it('is false only for lines no JSON value can start (so skipping JSON.parse never changes a verdict)', () => {
    for (const l of ['{"a":1}', '  [1]', '"s"', '-1', '0', '9e3', 'true', 'false', 'null', '\t{', 'nope', 'tea'])
      expect(mayBeJson(l), l).toBe(true);
    for (const l of ['y', 'hello', '<html>', '# x', '⚠️ warn', '\u{feff}{}', '', '   ', '+1', '.5'])
      expect(mayBeJson(l), l).toBe(false);
    // Every line it rejects really is not JSON.
    for (const l of ['y', 'hello', '<html>', '# x', '+1', '.5']) expect(() => JSON.parse(l)).toThrow();
  });
});

describe('GarbageMeter', () => {
  it('counts bad lines and bytes until a frame; says which limit was hit', () => {
    const m = new GarbageMeter({ maxLines: 3, maxBytes: 100 }, () => 0);
    m.badLine();
    m.badLine();
    expect(m.exceeded()).toBeUndefined();
    m.frame();
    m.badLine();
    m.badLine();
    expect(m.exceeded()).toBeUndefined();
    m.badLine();
    expect(m.exceeded()).toBe('3 lines in a row were not JSON-RPC');
    m.frame();
    m.read(100);
    expect(m.exceeded()).toBeUndefined();
    m.read(1);
    expect(m.exceeded()).toBe('101 bytes arrived without a valid JSON-RPC frame');
  });

  it('forgives a run slower than the window and starts counting again', () => {
    let t = 0;
    const m = new GarbageMeter({ maxLines: 2, windowMs: 100 }, () => t);
    m.badLine();
    t = 150;
    m.badLine();
    expect(m.exceeded()).toBeUndefined();
    expect(m.garbageLines).toBe(0);
    m.badLine();
    m.badLine();
    expect(m.exceeded()).toMatch(/^2 lines/);
  });

  it('rejects non-positive limits', () => {
    expect(() => new GarbageMeter({ maxLines: 0 })).toThrow(RangeError);
    expect(() => new GarbageMeter({ maxBytes: -1 })).toThrow(RangeError);
  });
});
