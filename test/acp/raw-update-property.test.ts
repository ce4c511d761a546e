/**
 * Raw byte splicing is kept only where it is proven equal to re-serializing: for generated
 * `session/update` lines (any member order, whitespace, escapes in strings and keys, nested values
 * whose strings hold quotes, backslashes and brackets, unknown fields, `_meta`, duplicate keys), a
 * line `rewriteUpdateLine` splices parses to what the re-serialized message would be; a shape it
 * cannot splice answers undefined. Plain shapes (no escaped key, no duplicate of the members it
 * looks for) are spliced, so the property is not met by answering undefined to everything.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rewriteUpdateLine } from '../../src/harness/acp/raw-update.js';

const T = 'talaria-1';
const QT = JSON.stringify(T);

/** A JSON value whose objects are member lists, so order and duplicate keys are the generator's. */
type Doc = { s: string } | { n: string } | { lit: 'true' | 'false' | 'null' } | { arr: Doc[] } | { obj: Member[] };
type Member = [string, Doc];

const tricky = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '/',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    'é',
    '😀',
    '\n',
    '\t',
    '\u0001',
    'u',
  ),
  maxLength: 12,
});
/** Mostly ordinary names; now and then one the scanner looks for (a duplicate or nested one) or one needing escapes. */
const keyName = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom('a', 'text', 'content', '_meta', 'messageId', 'sessionUpdate', 'x y', 'é') },
  { weight: 1, arbitrary: fc.constantFrom('sessionId', 'update', 'params') },
  { weight: 2, arbitrary: tricky },
);
const number = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('-0', '0.5', '1e3', '-2.5E-3', '123456789012345678901234567890', '1.0'),
);

const { doc } = fc.letrec<{ doc: Doc }>((tie) => ({
  doc: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky.map((s) => ({ s })),
    number.map((n) => ({ n })),
    fc.constantFrom('true', 'false', 'null').map((lit) => ({ lit }) as Doc),
    fc.array(tie('doc'), { maxLength: 4 }).map((arr) => ({ arr })),
    fc.array(fc.tuple(keyName, tie('doc')), { maxLength: 4 }).map((obj) => ({ obj })),
  ),
}));

/** Choices for the serializer (whitespace, escapes), used in turn. */
class Dice {
  private i = 0;
  constructor(
    private readonly rolls: number[],
    /** No whitespace, as JSON.stringify writes (the splice's fast path). */
    readonly tight = false,
  ) {}
  roll(n: number): number {
    return this.rolls.length === 0 ? 0 : this.rolls[this.i++ % this.rolls.length]! % n;
  }
}

const WS = ['', '', '', ' ', '\n', '\t', '\r\n  '];
const SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '/': '\\/' };

function str(s: string, d: Dice, escapeAll = false): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = c.charCodeAt(0);
    const must = escapeAll || c === '"' || c === '\\' || code < 0x20;
    const pick = d.roll(6);
    if (!must && pick !== 0) out += c;
    else if (SHORT[c] !== undefined && pick < 3) out += SHORT[c];
    else {
      const hex = code.toString(16).padStart(4, '0');
      out += '\\u' + (d.roll(2) === 0 ? hex : hex.toUpperCase());
    }
  }
  return out + '"';
}

function ser(v: Doc, d: Dice): string {
  const ws = () => (d.tight ? '' : WS[d.roll(WS.length)]!);
  if ('s' in v) return str(v.s, d);
  if ('n' in v) return v.n;
  if ('lit' in v) return v.lit;
  if ('arr' in v) return '[' + ws() + v.arr.map((x) => ser(x, d)).join(ws() + ',' + ws()) + ws() + ']';
  // A key is escaped now and then (the scanner must not take `session\u0049d` for anything but unknown).
  const key = (k: string) => (d.roll(40) === 0 ? str(k, d, true) : str(k, d));
  return (
    '{' + ws() + v.obj.map(([k, x]) => key(k) + ws() + ':' + ws() + ser(x, d)).join(ws() + ',' + ws()) + ws() + '}'
  );
}

/** A `session/update` message: the members an agent sends, extra ones, sometimes a duplicate, in any order. */
const message = fc
  .record({
    sid: tricky,
    kind: fc.constantFrom('agent_message_chunk', 'agent_thought_chunk', 'tool_call_update', 'plan', 'x_vendor'),
    updateExtra: fc.array(fc.tuple(keyName, doc), { maxLength: 4 }),
    paramsExtra: fc.array(fc.tuple(keyName, doc), { maxLength: 3 }),
    topExtra: fc.array(fc.tuple(keyName, doc), { maxLength: 2 }),
    meta: fc.option(doc, { nil: undefined }),
    messageId: fc.option(tricky, { nil: undefined }),
    rolls: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
    order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    /** The members in JSON.stringify's order, without whitespace: the splice's fast path. */
    stringified: fc.boolean(),
  })
  .map((m) => {
    const shuffle = (xs: Member[], salt: number): Member[] =>
      m.stringified
        ? xs
        : xs
            .map((x, i) => [x, (m.order[(i + salt) % m.order.length]! * 31 + i) % 97] as const)
            .sort((a, b) => a[1] - b[1])
            .map(([x]) => x);
    const update: Member[] = shuffle(
      [
        ['sessionUpdate', { s: m.kind }],
        ...(m.messageId !== undefined ? [['messageId', { s: m.messageId }] as Member] : []),
        [
          'content',
          {
            obj: [
              ['type', { s: 'text' }],
              ['text', { s: 'a "quoted" {brace} \\ back' }],
            ],
          },
        ],
        ...m.updateExtra,
      ],
      1,
    );
    const params: Member[] = shuffle(
      [
        ['sessionId', { s: m.sid }],
        ['update', { obj: update }],
        ...(m.meta !== undefined ? [['_meta', m.meta] as Member] : []),
        ...m.paramsExtra,
      ],
      2,
    );
    const top: Member[] = shuffle(
      [['jsonrpc', { s: '2.0' }], ['method', { s: 'session/update' }], ['params', { obj: params }], ...m.topExtra],
      3,
    );
    return {
      line: ser({ obj: top }, new Dice(m.rolls, m.stringified)),
      insert: m.messageId === undefined ? 'messageId' : undefined,
    };
  });

type Parsed = { params: { sessionId: unknown; update: Record<string, unknown> } };

/** Whether the line is a shape the splice must handle: its keys unescaped, the members it looks for not repeated. */
function plain(line: string): boolean {
  const count = (re: RegExp) => (line.match(re) ?? []).length;
  // Every string token, left to right (outside strings there are no quotes): a key holding an escape is not plain.
  for (const m of line.matchAll(/"(?:[^"\\]|\\.)*"(\s*:)?/g))
    if (m[1] !== undefined && m[0].includes('\\')) return false;
  const p = JSON.parse(line) as { params?: unknown };
  // The members looked for appear once each (anywhere: a nested one with the same name is fine for the scan,
  // but a repeat at its own level is not, and telling them apart here would be a second scanner).
  return (
    typeof p.params === 'object' &&
    count(/"params"\s*:/g) === 1 &&
    count(/"sessionId"\s*:/g) === 1 &&
    count(/"update"\s*:/g) === 1
  );
}

describe('rewriteUpdateLine on generated lines', () => {
  it('a spliced line means what re-serializing would; a plain shape is always spliced', () => {
    let spliced = 0;
    let fast = 0;
    fc.assert(
      fc.property(message, ({ line, insert }) => {
        const id = 'm-' + 'x'.repeat(3);
        const member = insert ? `${JSON.stringify(insert)}:${JSON.stringify(id)},` : '';
        const out = rewriteUpdateLine(line, QT, member);
        const want = JSON.parse(line) as Parsed;
        if (out === undefined) {
          expect(plain(line), line).toBe(false);
          return;
        }
        spliced++;
        if (line.startsWith('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"')) fast++;
        want.params.sessionId = T;
        want.params.update = { ...(insert ? { [insert]: id } : {}), ...want.params.update };
        expect(JSON.parse(out), line).toEqual(want);
      }),
      { numRuns: 1000 },
    );
    expect(spliced).toBeGreaterThan(250);
    expect(fast).toBeGreaterThan(50);
  });
});
