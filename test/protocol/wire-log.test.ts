import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatWireLine, parseWireLog, type WireLogError } from '../../src/protocol/wire-log.js';
import type { RawMessage } from '../../src/protocol/types.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2/', import.meta.url));
const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.ndjson'));

describe('wire log', () => {
  it('formats exactly {"t_ms","dir","msg"}', () => {
    expect(formatWireLine({ t_ms: 12, dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: null } })).toBe(
      '{"t_ms":12,"dir":"agent->client","msg":{"jsonrpc":"2.0","id":1,"result":null}}',
    );
  });

  it('round-trips every real fixture: parse, reformat, reparse equal', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const name of files) {
      const text = readFileSync(join(FIXTURES, name), 'utf8');
      const parsed = parseWireLog(text);
      const nonBlank = text.split('\n').filter((l) => l.trim() !== '').length;
      expect(parsed.length, name).toBe(nonBlank);
      const reformatted = parsed.map(formatWireLine).join('\n') + '\n';
      expect(reformatted).not.toContain('"t_ms": '); // our own spacing is compact
      expect(parseWireLog(reformatted), name).toEqual(parsed);
      // And equal to a plain JSON.parse of each fixture line: nothing lost or changed.
      expect(parsed, name).toEqual(
        text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l)),
      );
    }
  });

  it('skips blank lines, tolerates CRLF and spacing', () => {
    const text =
      '\n{"t_ms": 0, "dir": "client->agent", "msg": {"id": 1}}\r\n\n   \n{"t_ms":5,"dir":"agent->client","msg":{"id":1}}';
    expect(parseWireLog(text)).toEqual([
      { t_ms: 0, dir: 'client->agent', msg: { id: 1 } },
      { t_ms: 5, dir: 'agent->client', msg: { id: 1 } },
    ]);
  });

  it('reports bad lines with their line numbers, or throws on the first without a callback', () => {
    const text = [
      '{"t_ms":0,"dir":"client->agent","msg":{}}',
      'garbage',
      '',
      '{"t_ms":"1","dir":"client->agent","msg":{}}',
      '{"t_ms":1,"dir":"sideways","msg":{}}',
      '{"t_ms":1,"dir":"agent->client","msg":[1]}',
      '{"t_ms":2,"dir":"agent->client","msg":{"ok":true}}',
    ].join('\n');
    const bad: WireLogError[] = [];
    const good = parseWireLog(text, (e) => bad.push(e));
    expect(good.map((l) => l.t_ms)).toEqual([0, 2]);
    expect(bad.map((b) => b.line)).toEqual([2, 4, 5, 6]);
    expect(bad[0]!.error).toMatch(/not JSON/);
    expect(() => parseWireLog(text)).toThrow(/line 2/);
  });

  it('a tapped frame is written as the bytes that crossed the pipe, not serialised again', () => {
    // Spacing and key order as the agent sent them: JSON.stringify(msg) would change both.
    const raw = '{"id": 7, "jsonrpc": "2.0",  "result": {"b": 1, "a": 2}}';
    const line = formatWireLine({ t_ms: 3, dir: 'agent->client', msg: JSON.parse(raw) as RawMessage, raw });
    expect(line).toBe(`{"t_ms":3,"dir":"agent->client","msg":${raw}}`);
    expect(parseWireLog(line)[0]!.msg).toEqual({ id: 7, jsonrpc: '2.0', result: { b: 1, a: 2 } });
  });
});
