/**
 * Display width of terminal strings (ANSI escapes take no room, wide characters and emoji
 * sequences take two), on the maintained `string-width` / `strip-ansi` / `wrap-ansi`: grapheme
 * clusters, zero-width joiners and East Asian widths are theirs to get right, not ours.
 */
import stringWidth from 'string-width';
import stripAnsiImpl from 'strip-ansi';
import wrapAnsi from 'wrap-ansi';

export { sanitize } from './sanitize.js';

export function stripAnsi(s: string): string {
  return stripAnsiImpl(s);
}

export function visibleWidth(s: string): number {
  return stringWidth(s);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const ANSI_AT = /^(?:\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))/;

/** Cuts `s` to at most `width` columns (ending in … when cut), keeping ANSI codes and resetting at the cut. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (stringWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  let styled = false;
  let i = 0;
  while (i < s.length) {
    const esc = ANSI_AT.exec(s.slice(i, i + 256));
    if (esc) {
      out += esc[0];
      styled = true;
      i += esc[0].length;
      continue;
    }
    // One grapheme cluster at a time, so an emoji sequence is never cut in half.
    const next = s.indexOf('\x1b', i);
    const run = s.slice(i, next < 0 ? s.length : next);
    let stop = false;
    for (const { segment } of segmenter.segment(run)) {
      const cw = stringWidth(segment);
      if (w + cw > width - 1) {
        stop = true;
        break;
      }
      out += segment;
      w += cw;
    }
    if (stop) break;
    i += run.length;
  }
  return out + '…' + (styled ? '\x1b[0m' : '');
}

/**
 * Wraps `s` to `width` columns at word boundaries (a word longer than a row is cut), keeping
 * ANSI styles across the breaks. `lead` is the line's gutter, repeated on every row (default:
 * its leading spaces).
 */
export function wrap(s: string, width: number, lead = /^ */.exec(s)![0]): string[] {
  if (width <= 0 || stringWidth(s) <= width) return [s];
  const has = s.startsWith(lead);
  const room = width - stringWidth(lead);
  if (!has || room < 10) return wrapAnsi(s, width, { hard: true }).split('\n');
  return wrapAnsi(s.slice(lead.length), room, { hard: true })
    .split('\n')
    .map((row) => lead + row);
}
