/**
 * A small, forgiving POSIX-shell splitter — just enough to see WHICH commands a command line
 * runs, for the dangerous-command check and deny-rule matching. It never throws: unterminated
 * quotes or substitutions simply run to the end of the input.
 *
 * What it understands: quotes ('…', "…", \x), separators (; && || & | |& newline), grouping
 * ( ) { }, redirections (> >> < &> 2> >| …), comments, and substitutions $(…), `…`, <(…),
 * >(…) — including $(…) and `…` inside double quotes, since those run too. Commands found in
 * substitutions are returned as commands of their own and are also attached to the command
 * whose word contained them (`subs`), so `sh <(curl …)` can be recognised.
 */

export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** Words with quotes removed. */
  words: string[];
  redirects: Redirect[];
  /** Commands run by substitutions inside this command's words or redirections. */
  subs: SimpleCommand[];
}

/** Commands connected by `|` / `|&`. */
export type Pipeline = SimpleCommand[];

const MAX_DEPTH = 8;

/** Every pipeline the line runs, nested substitutions included (flattened, in source order). */
export function parseShell(src: string, depth = 0): Pipeline[] {
  const out: Pipeline[] = [];
  let pipeline: Pipeline = [];
  let cmd: SimpleCommand = { words: [], redirects: [], subs: [] };
  let word = '';
  let inWord = false;
  let pendingRedirect: string | undefined;
  let i = 0;
  const n = src.length;

  const nested = (inner: string): void => {
    if (depth >= MAX_DEPTH) return;
    const pipes = parseShell(inner, depth + 1);
    for (const p of pipes) {
      out.push(p);
      cmd.subs.push(...p);
    }
  };
  const endWord = (): void => {
    if (!inWord) return;
    if (pendingRedirect !== undefined) {
      cmd.redirects.push({ op: pendingRedirect, target: word });
      pendingRedirect = undefined;
    } else {
      cmd.words.push(word);
    }
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (pendingRedirect !== undefined) {
      cmd.redirects.push({ op: pendingRedirect, target: '' });
      pendingRedirect = undefined;
    }
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.subs.length > 0) pipeline.push(cmd);
    cmd = { words: [], redirects: [], subs: [] };
  };
  const endPipeline = (): void => {
    endCommand();
    if (pipeline.length > 0) out.push(pipeline);
    pipeline = [];
  };
  /** Reads a balanced `(…)` body starting just after the opening paren; returns [body, next index]. */
  const readParens = (start: number): [string, number] => {
    let d = 1;
    let j = start;
    let quote: string | undefined;
    while (j < n) {
      const c = src[j]!;
      if (quote) {
        if (c === '\\' && quote === '"') j++;
        else if (c === quote) quote = undefined;
      } else if (c === '\\') j++;
      else if (c === "'" || c === '"') quote = c;
      else if (c === '(') d++;
      else if (c === ')' && --d === 0) return [src.slice(start, j), j + 1];
      j++;
    }
    return [src.slice(start), n];
  };
  const readBackticks = (start: number): [string, number] => {
    let j = start;
    let body = '';
    while (j < n && src[j] !== '`') {
      if (src[j] === '\\' && j + 1 < n) {
        body += src[j + 1];
        j += 2;
      } else body += src[j++];
    }
    return [body, j + 1];
  };

  while (i < n) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
      i++;
    } else if (c === '\n') {
      endPipeline();
      i++;
    } else if (c === '#' && !inWord) {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '\\') {
      if (next === '\n') i += 2;
      else {
        if (next !== undefined) word += next;
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      const stop = end < 0 ? n : end;
      word += src.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      while (i < n && src[i] !== '"') {
        const d = src[i]!;
        if (d === '\\' && i + 1 < n) {
          const e = src[i + 1]!;
          word += '"\\$`\n'.includes(e) ? e : d + e;
          i += 2;
        } else if (d === '$' && src[i + 1] === '(') {
          const [body, j] = readParens(i + 2);
          nested(body);
          word += src.slice(i, j);
          i = j;
        } else if (d === '`') {
          const [body, j] = readBackticks(i + 1);
          nested(body);
          word += src.slice(i, j);
          i = j;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if ((c === '$' || c === '<' || c === '>') && next === '(') {
      const [body, j] = readParens(i + 2);
      nested(body);
      word += src.slice(i, j);
      inWord = true;
      i = j;
    } else if (c === '`') {
      const [body, j] = readBackticks(i + 1);
      nested(body);
      word += src.slice(i, j);
      inWord = true;
      i = j;
    } else if (c === ';' || c === '(' || c === ')') {
      endPipeline();
      i++;
    } else if (c === '&') {
      if (next === '>') {
        // `&>file` / `&>>file`: redirect both streams.
        endWord();
        const op = src[i + 2] === '>' ? '&>>' : '&>';
        pendingRedirect = op;
        i += op.length;
      } else {
        endPipeline();
        i += next === '&' ? 2 : 1;
      }
    } else if (c === '|') {
      if (next === '|') {
        endPipeline();
        i += 2;
      } else {
        endCommand();
        i += next === '&' ? 2 : 1;
      }
    } else if (c === '>' || c === '<') {
      // A word made only of digits right before is a file descriptor (`2>`), not an argument.
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else endWord();
      let op = c;
      let j = i + 1;
      while (j < n && '<>&|'.includes(src[j]!) && op.length < 3) op += src[j++];
      // `2>&1` style duplications carry a descriptor, not a file: keep them as a redirect anyway.
      pendingRedirect = op;
      i = j;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  endPipeline();
  return out;
}

/** Every simple command of the line (substitutions included), flattened. */
export function simpleCommands(src: string): SimpleCommand[] {
  return parseShell(src).flat();
}
