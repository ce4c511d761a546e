/**
 * Low-level readers for the shell splitter (shell.ts): balanced `(…)`, backticks, `${…}`, bash's
 * ANSI-C `$'…'` strings. Each takes the source and a start index and returns what it read plus
 * the index after it; none throws, and an unterminated construct runs to the end of the input
 * (the shell would refuse it; treating the rest as inside is the cautious reading).
 */

/** Characters that end a bare word for keyword detection inside `(…)`. */
const TOKEN_END = ' \t\r\n;&|()<>';

/**
 * Body of a `(…)` whose opening paren is just before `start`. Tracks quotes, backslashes, nested
 * parens, comments, here-doc bodies and `case … esac` (a case pattern's `)` does not close it).
 * `closed` is false when the input ended first.
 */
export function readParens(src: string, start: number): [body: string, next: number, closed: boolean] {
  const n = src.length;
  let depth = 1;
  /** Paren depth of each open `case`: a `)` at that depth ends a pattern. */
  const cases: number[] = [];
  const heredocs: { delimiter: string; stripTabs: boolean }[] = [];
  let token = '';
  let quote: string | undefined;
  for (let j = start; j < n; j++) {
    const c = src[j]!;
    if (quote) {
      // ANSI-C `$'…'` (quote 'a') honours backslashes, plain '…' does not.
      if (c === '\\' && quote !== "'") j++;
      else if (c === (quote === 'a' ? "'" : quote)) quote = undefined;
      continue;
    }
    if (TOKEN_END.includes(c)) {
      if (token === 'case') cases.push(depth);
      else if (token === 'esac' && cases.at(-1) === depth) cases.pop();
      token = '';
    } else if (c === '#' && token === '') {
      while (j + 1 < n && src[j + 1] !== '\n') j++;
      continue;
    } else token += c;
    if (c === '\\') j++;
    else if (c === '\n' && heredocs.length > 0) j = skipHereDocs(src, j + 1, heredocs.splice(0)) - 1;
    else if (c === '<' && src[j + 1] === '<' && src[j + 2] === '<')
      j += 2; // here-string, not a here-doc
    else if (c === '<' && src[j + 1] === '<') {
      const [delimiter, stripTabs, next] = readDelimiter(src, j + 2);
      heredocs.push({ delimiter, stripTabs });
      j = next - 1;
      token = '';
    } else if (c === '$' && src[j + 1] === "'") {
      quote = 'a';
      j++;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (cases.at(-1) === depth) continue;
      if (--depth === 0) return [src.slice(start, j), j + 1, true];
    }
  }
  return [src.slice(start), n, false];
}

/**
 * Bash reads `$((…))` as arithmetic only when the inner `(` closes right before the outer `)`;
 * `$((cmd) )` is a command substitution of a subshell, and runs.
 */
export function isArithmetic(body: string): boolean {
  if (!body.startsWith('(')) return false;
  const [, next, closed] = readParens(body, 1);
  return closed && next === body.length;
}

/** The delimiter word after `<<` (quotes removed), whether it is `<<-`, and the index after it. */
export function readDelimiter(src: string, start: number): [delimiter: string, stripTabs: boolean, next: number] {
  let j = start;
  const stripTabs = src[j] === '-';
  if (stripTabs) j++;
  while (src[j] === ' ' || src[j] === '\t') j++;
  let word = '';
  while (j < src.length && !' \t\r\n;&|()<>'.includes(src[j]!)) {
    if (!'\'"\\'.includes(src[j]!)) word += src[j];
    j++;
  }
  return [word, stripTabs, j];
}

/** Skips here-doc bodies starting at `start` (the line after their `<<`); returns the index after the last. */
export function skipHereDocs(src: string, start: number, docs: { delimiter: string; stripTabs: boolean }[]): number {
  let i = start;
  for (const d of docs) {
    while (i < src.length) {
      const nl = src.indexOf('\n', i);
      const line = src.slice(i, nl < 0 ? src.length : nl);
      i = nl < 0 ? src.length : nl + 1;
      if ((d.stripTabs ? line.replace(/^\t+/, '') : line) === d.delimiter) break;
    }
  }
  return i;
}

/** Body of a backtick substitution opened just before `start`, with its backslash escapes undone. */
export function readBackticks(src: string, start: number): [body: string, next: number] {
  const n = src.length;
  let body = '';
  let j = start;
  while (j < n && src[j] !== '`') {
    // Inside backticks a backslash quotes only $ ` \ and newline; elsewhere it stays.
    if (src[j] === '\\' && j + 1 < n && '$`\\\n'.includes(src[j + 1]!)) {
      body += src[j + 1];
      j += 2;
    } else body += src[j++];
  }
  return [body, j + 1];
}

/** `${…}` opened at `start` (the `$`): returns the inner text and the index after the `}`. */
export function readBraces(src: string, start: number): [inner: string, next: number] {
  const n = src.length;
  let depth = 0;
  let quote: string | undefined;
  for (let j = start + 1; j < n; j++) {
    const c = src[j]!;
    if (quote) {
      // ANSI-C `$'…'` (quote 'a') honours backslashes, plain '…' does not.
      if (c === '\\' && quote !== "'") j++;
      else if (c === (quote === 'a' ? "'" : quote)) quote = undefined;
      continue;
    }
    if (c === '\\') j++;
    else if (c === '$' && src[j + 1] === "'") {
      quote = 'a';
      j++;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return [src.slice(start + 2, j), j + 1];
  }
  return [src.slice(start + 2), n];
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Bash's `$'…'` string starting at `start` (the `$`): its decoded value and the index after it. */
export function readAnsiC(src: string, start: number): [value: string, next: number] {
  const n = src.length;
  let out = '';
  let j = start + 2;
  const takeWhile = (re: RegExp, max: number): string => {
    let s = '';
    while (j < n && s.length < max && re.test(src[j]!)) s += src[j++];
    return s;
  };
  while (j < n && src[j] !== "'") {
    const c = src[j++]!;
    if (c !== '\\' || j >= n) {
      out += c;
      continue;
    }
    const e = src[j++]!;
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (/[0-7]/.test(e)) {
      j--;
      out += String.fromCharCode(parseInt(takeWhile(/[0-7]/, 3), 8) & 0xff);
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const hex = takeWhile(/[0-9a-fA-F]/, e === 'x' ? 2 : e === 'u' ? 4 : 8);
      out += hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)) : '\\' + e;
    } else if (e === 'c' && j < n) {
      out += String.fromCharCode(src.charCodeAt(j++) & 0x1f);
    } else out += '\\' + e;
  }
  return [out, j + 1];
}
