/**
 * JSON with comments and trailing commas (Zed's settings.json): comments are blanked out
 * (keeping offsets, so JSON.parse positions still point at the right line), then trailing
 * commas before `}` / `]` are dropped. Strings are respected throughout.
 */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') (out += ' '), i++;
    } else if (c === '/' && text[i + 1] === '*') {
      out += '  ';
      i += 2;
      while (i < n && !(text[i] === '*' && text[i + 1] === '/')) (out += text[i] === '\n' ? '\n' : ' '), i++;
      if (i < n) (out += '  '), (i += 2);
    } else {
      out += c;
      i++;
    }
  }
  return dropTrailingCommas(out);
}

function dropTrailingCommas(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
      continue;
    }
    if (c === ',') {
      let j = i + 1;
      while (j < n && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') {
        out += ' ';
        i++;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** Parses JSONC; throws a SyntaxError with the line number in its message. */
export function parseJsonc(text: string): unknown {
  const clean = stripJsonc(text.replace(/^\uFEFF/, ''));
  try {
    return JSON.parse(clean);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line = m ? clean.slice(0, Number(m[1])).split('\n').length : undefined;
    throw new SyntaxError(`${(e as Error).message}${line !== undefined ? ` (line ${line})` : ''}`);
  }
}
