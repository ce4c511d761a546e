import { describe, it, expect } from 'vitest';
import { createStyle } from '../../../src/cli/render/style.js';
import { sanitize, stripAnsi, truncate, visibleWidth, wrap } from '../../../src/cli/render/width.js';

const color = createStyle(true);

describe('width', () => {
  it('counts columns: ANSI takes none, CJK and emoji take two', () => {
    expect(visibleWidth('\x1b[1mabc\x1b[22m')).toBe(3);
    expect(visibleWidth('日本')).toBe(4);
    expect(visibleWidth('ok 👍')).toBe(5);
  });

  it('counts grapheme clusters: a ZWJ emoji family is one glyph, combining marks take no room', () => {
    expect(visibleWidth('👨‍👩‍👧')).toBe(2);
    expect(visibleWidth('ก้')).toBe(1); // Thai consonant + combining tone mark
    expect(visibleWidth('\x1b]8;;https://example.com\x07link\x1b]8;;\x07')).toBe(4); // OSC 8 hyperlink
  });

  it('truncates to the width with an ellipsis, keeping and then resetting styles', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('short', 8)).toBe('short');
    const t = truncate(color.green('abcdefghij'), 5);
    expect(stripAnsi(t)).toBe('abcd…');
    expect(t.endsWith('\x1b[0m')).toBe(true);
    expect(visibleWidth(truncate('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
  });

  it('never cuts an emoji sequence in half', () => {
    expect(truncate('ab👨‍👩‍👧cd', 4)).toBe('ab…');
    expect(truncate('ab👨‍👩‍👧cd', 5)).toBe('ab👨‍👩‍👧…');
  });

  it('wraps at word boundaries, keeps the indentation, cuts only words longer than a row', () => {
    expect(wrap('the quick brown fox jumps over the lazy dog', 16)).toEqual([
      'the quick brown',
      'fox jumps over',
      'the lazy dog',
    ]);
    expect(wrap('  │ indented output that is long enough to wrap', 24, '  │ ')).toEqual([
      '  │ indented output that',
      '  │ is long enough to',
      '  │ wrap',
    ]);
    expect(wrap('    a list item that goes on for a while', 20)).toEqual([
      '    a list item that',
      '    goes on for a',
      '    while',
    ]);
    expect(wrap('short', 40)).toEqual(['short']);
    expect(wrap('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    for (const row of wrap('日本語のテキストを折り返す 日本語のテキスト', 10))
      expect(visibleWidth(row)).toBeLessThanOrEqual(10);
    const styled = wrap(color.bold('bold words wrap here'), 10);
    expect(styled.map(stripAnsi)).toEqual(['bold words', 'wrap here']);
    expect(styled.every((r) => r.includes('\x1b[1m'))).toBe(true); // the style is carried to each row
  });

  it('sanitize neutralizes escapes and control characters, keeps newlines', () => {
    expect(sanitize('a\x1b[2Jb\r\n\tc\x07')).toBe('a␛[2Jb\n  c');
  });
});
