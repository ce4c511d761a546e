/**
 * How the fake model picks what to do, as the model Hermes was recorded against
 * (research fake_openai.py): it reads the LAST user message of the request — after
 * Hermes' merge, so a failed prompt's text is still in it — and the keyword that occurs
 * LAST wins; `[[token: …]]` directives win when they come later still. No keyword → echo.
 */

/** Longest first, so TOOLSLOW is not read as TOOLS. MAXITER is the emulator's own. */
export const KEYWORDS = [
  'TOOLSLOW',
  'TOOLS',
  'RUN',
  'WRITE',
  'EDIT2',
  'DANGER',
  'TODO',
  'THINK',
  'SLOW',
  'OVERFLOW',
  'AUTHFAIL',
  'MCP',
  'MAXITER',
  'COMPRESSME',
  'DELEGATE',
];
const TOKEN_RE = /\[\[\s*(bash|read|write|error|slow|think)\s*:\s*([\s\S]*?)\s*\]\]/gi;

export type Pick =
  { kind: 'kw'; name: string; arg: string } | { kind: 'token'; name: string; arg: string } | { kind: 'echo' };

export function pickKeyword(text: string): Pick {
  let best: string | null = null;
  let bestPos = -1;
  for (const kw of KEYWORDS) {
    for (const m of text.matchAll(new RegExp(`\\b${kw}\\b`, 'g'))) {
      if (m.index > bestPos || (m.index === bestPos && kw.length > (best?.length ?? 0))) {
        best = kw;
        bestPos = m.index;
      }
    }
  }
  const last = [...text.matchAll(TOKEN_RE)].at(-1);
  if (last && last.index > bestPos) return { kind: 'token', name: last[1]!.toLowerCase(), arg: last[2] ?? '' };
  if (best) return { kind: 'kw', name: best, arg: text.slice(bestPos) };
  return { kind: 'echo' };
}

/** The `[[think: …]]` text, if any: reasoning the model streams before any answer. */
export function thinkingOf(text: string): string | undefined {
  let t: string | undefined;
  for (const m of text.matchAll(TOKEN_RE)) if (m[1]!.toLowerCase() === 'think') t = m[2];
  return t;
}

/**
 * With HERMES_EMU_OVERFLOW off, an OVERFLOW in the text of earlier (failed, merged) prompts
 * no longer counts: only the newest prompt can ask for one. Real Hermes keeps overflowing.
 */
export function maskStaleOverflow(merged: string, newest: string): string {
  if (!merged.endsWith(newest)) return merged;
  const stale = merged.slice(0, merged.length - newest.length);
  return stale.replace(/\bOVERFLOW\b/g, 'overflow') + newest;
}
