/** Display width of terminal strings (ANSI escapes take no room, wide characters take two). */

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** East Asian wide / fullwidth ranges and emoji: two columns. Combining marks: zero. */
function charWidth(cp: number): number {
  if (cp === 0 || cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function visibleWidth(s: string): number {
  let w = 0;
  for (const ch of stripAnsi(s)) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Cuts `s` to at most `width` columns (ending in … when cut), keeping ANSI codes and resetting at the cut. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (visibleWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  let i = 0;
  let styled = false;
  while (i < s.length) {
    ANSI.lastIndex = i;
    const m = ANSI.exec(s);
    if (m && m.index === i) {
      out += m[0];
      styled = true;
      i += m[0].length;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const cw = charWidth(cp);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
    i += ch.length;
  }
  return out + '…' + (styled ? '\x1b[0m' : '');
}

/** Tabs and control characters would break the column arithmetic; make them harmless. */
export function sanitize(s: string): string {
  return s.replace(/\t/g, '  ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\x1b' ? '␛' : ''));
}
