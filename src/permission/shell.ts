/**
 * A small, forgiving POSIX/bash splitter — just enough to see WHICH commands a command line
 * runs, for the dangerous-command check and deny-rule matching. It never throws: unterminated
 * quotes or substitutions simply run to the end of the input.
 *
 * What it understands: quotes ('…', "…", bash's $'…' and $"…", \x), separators (; && || & | |&
 * newline), grouping ( ) { }, redirections (> >> < &> 2> >| <<< …), here-documents (their bodies
 * are kept on the command; an unquoted delimiter's body is scanned for substitutions, which
 * run), comments, and substitutions $(…), $((…)), `…`, ${…}, <(…), >(…) — including inside
 * double quotes, since those run too. Commands found in substitutions are returned as commands
 * of their own and are also attached to the command whose word contained them (`subs`), so
 * `sh <(curl …)` can be recognised. A word whose value is only known at run time (an expansion,
 * a glob, a brace expansion) is flagged in `dynamic`: the checker must not trust its text.
 * tests: test/permission/shell.test.ts, test/permission/shell-fuzz.test.ts
 */

import { isArithmetic, readAnsiC, readBackticks, readBraces, readParens } from './shell-lex.js';

export interface Redirect {
  op: string;
  target: string;
}

export interface HereDoc {
  body: string;
  /** Quoted delimiter (`<<'EOF'`): the body is literal, no substitution runs. */
  quoted: boolean;
}

export interface SimpleCommand {
  /** Words with quotes removed. */
  words: string[];
  /** Per word: true when its value is only known at run time ($x, $(…), `…`, globs, {a,b}). */
  dynamic: boolean[];
  redirects: Redirect[];
  /** Commands run by substitutions inside this command's words, redirections or here-docs. */
  subs: SimpleCommand[];
  /** Here-document bodies fed to this command's standard input, in order. */
  heredocs: HereDoc[];
  /** Something inside nests deeper than the splitter looks: its content is unknown. */
  tooDeep?: true;
}

/** Commands connected by `|` / `|&`. */
export type Pipeline = SimpleCommand[];

const MAX_DEPTH = 8;

const emptyCommand = (): SimpleCommand => ({ words: [], dynamic: [], redirects: [], subs: [], heredocs: [] });

interface PendingHereDoc {
  cmd: SimpleCommand;
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

/** Every pipeline the line runs, nested substitutions included (flattened, in source order). */
export function parseShell(src: string, depth = 0): Pipeline[] {
  const out: Pipeline[] = [];
  let pipeline: Pipeline = [];
  let cmd = emptyCommand();
  let word = '';
  let inWord = false;
  let dyn = false;
  let quotedWord = false;
  let braceSeen = false;
  let bracketOpen = false;
  let pendingRedirect: string | undefined;
  const heredocs: PendingHereDoc[] = [];
  let i = 0;
  const n = src.length;

  /** Parses `inner` as a script that runs, attaching its commands to the current command. */
  const nested = (inner: string): void => {
    if (depth >= MAX_DEPTH) {
      const deep: SimpleCommand = { ...emptyCommand(), tooDeep: true };
      out.push([deep]);
      cmd.subs.push(deep);
      return;
    }
    for (const p of parseShell(inner, depth + 1)) {
      out.push(p);
      cmd.subs.push(...p);
    }
  };
  /** Text where only substitutions run (an unquoted here-doc body, an arithmetic expression). */
  const expansionsIn = (text: string): void => {
    for (let j = 0; j < text.length; j++) {
      const c = text[j]!;
      if (c === '\\') j++;
      else if (c === '$' && text[j + 1] === '(') {
        const [body, next] = readParens(text, j + 2);
        if (isArithmetic(body)) expansionsIn(body);
        else nested(body);
        j = next - 1;
      } else if (c === '`') {
        const [body, next] = readBackticks(text, j + 1);
        nested(body);
        j = next - 1;
      }
    }
  };
  const endWord = (): void => {
    if (!inWord) return;
    if (pendingRedirect !== undefined) {
      cmd.redirects.push({ op: pendingRedirect, target: word });
      if (pendingRedirect === '<<' || pendingRedirect === '<<-') {
        heredocs.push({ cmd, delimiter: word, quoted: quotedWord, stripTabs: pendingRedirect === '<<-' });
      }
      pendingRedirect = undefined;
    } else {
      cmd.words.push(word);
      // `{` and `}` alone are grouping; inside a word they are bash brace expansion.
      cmd.dynamic.push(dyn || (braceSeen && word !== '{' && word !== '}'));
    }
    word = '';
    inWord = false;
    dyn = false;
    quotedWord = false;
    braceSeen = false;
    bracketOpen = false;
  };
  const endCommand = (): void => {
    endWord();
    if (pendingRedirect !== undefined) {
      cmd.redirects.push({ op: pendingRedirect, target: '' });
      pendingRedirect = undefined;
    }
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.subs.length > 0) pipeline.push(cmd);
    cmd = emptyCommand();
  };
  const endPipeline = (): void => {
    endCommand();
    if (pipeline.length > 0) out.push(pipeline);
    pipeline = [];
  };
  /** After a newline: the bodies of the here-docs opened on that line, in order. */
  const readHereDocs = (): void => {
    for (const h of heredocs.splice(0)) {
      const lines: string[] = [];
      while (i < n) {
        const nl = src.indexOf('\n', i);
        const end = nl < 0 ? n : nl;
        const line = src.slice(i, end);
        i = nl < 0 ? n : nl + 1;
        if ((h.stripTabs ? line.replace(/^\t+/, '') : line) === h.delimiter) break;
        lines.push(line);
      }
      const body = lines.join('\n');
      h.cmd.heredocs.push({ body, quoted: h.quoted });
      if (!h.quoted) {
        const saved = cmd;
        cmd = h.cmd;
        expansionsIn(body);
        cmd = saved;
      }
    }
  };
  /** `$…` outside single quotes; returns the index after it. */
  const dollar = (): number => {
    const next = src[i + 1];
    if (next === '(') {
      const [body, j] = readParens(src, i + 2);
      // `$((…))` is arithmetic: only substitutions inside it run.
      if (isArithmetic(body)) expansionsIn(body);
      else nested(body);
      word += src.slice(i, j);
      dyn = true;
      return j;
    }
    if (next === '{') {
      const [inner, j] = readBraces(src, i);
      expansionsIn(inner);
      word += src.slice(i, j);
      dyn = true;
      return j;
    }
    if (next !== undefined && /[\w@*#?$!-]/.test(next)) {
      let j = i + 2;
      if (/[A-Za-z_]/.test(next)) while (j < n && /\w/.test(src[j]!)) j++;
      word += src.slice(i, j);
      dyn = true;
      return j;
    }
    word += '$';
    return i + 1;
  };
  const doubleQuoted = (): void => {
    inWord = true;
    quotedWord = true;
    i++;
    while (i < n && src[i] !== '"') {
      const d = src[i]!;
      if (d === '\\' && i + 1 < n) {
        const e = src[i + 1]!;
        word += '"\\$`\n'.includes(e) ? (e === '\n' ? '' : e) : d + e;
        i += 2;
      } else if (d === '$') {
        i = dollar();
      } else if (d === '`') {
        const [body, j] = readBackticks(src, i + 1);
        nested(body);
        word += src.slice(i, j);
        dyn = true;
        i = j;
      } else {
        word += d;
        i++;
      }
    }
    i++;
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
      if (heredocs.length > 0) readHereDocs();
    } else if (c === '#' && !inWord) {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '\\') {
      if (next === '\n') i += 2;
      else {
        if (next !== undefined) word += next;
        inWord = true;
        quotedWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      const stop = end < 0 ? n : end;
      word += src.slice(i + 1, stop);
      inWord = true;
      quotedWord = true;
      i = stop + 1;
    } else if (c === '"') {
      doubleQuoted();
    } else if (c === '$' && next === "'") {
      const [value, j] = readAnsiC(src, i);
      word += value;
      inWord = true;
      quotedWord = true;
      i = j;
    } else if (c === '$' && next === '"') {
      i++;
      doubleQuoted();
    } else if (c === '$') {
      inWord = true;
      i = dollar();
    } else if ((c === '<' || c === '>') && next === '(') {
      const [body, j] = readParens(src, i + 2);
      nested(body);
      word += src.slice(i, j);
      inWord = true;
      dyn = true;
      i = j;
    } else if (c === '`') {
      const [body, j] = readBackticks(src, i + 1);
      nested(body);
      word += src.slice(i, j);
      inWord = true;
      dyn = true;
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
      if (inWord && !quotedWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else endWord();
      let op = c;
      let j = i + 1;
      while (j < n && '<>&|'.includes(src[j]!) && op.length < 3) op += src[j++];
      if (op === '<<' && src[j] === '-') op += src[j++];
      // `2>&1` style duplications carry a descriptor, not a file: keep them as a redirect anyway.
      pendingRedirect = op;
      i = j;
    } else {
      // Globs: `*`, `?`, and `[…]` (a lone `[` is the test command).
      if (c === '*' || c === '?' || (c === ']' && bracketOpen)) dyn = true;
      if (c === '[') bracketOpen = true;
      if (c === '{' || c === '}') braceSeen = true;
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
