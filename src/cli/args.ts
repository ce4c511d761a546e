/**
 * Argument parsing on node:util parseArgs (strict), with usage errors that become exit code 2
 * and a one-line message, and shell-like splitting for `--agent-cmd "CMD ARGS"`.
 */
import { parseArgs } from 'node:util';
import { TalariaError } from '../protocol/errors.js';

/** Bad usage: printed as one line, exit code 2. */
export class UsageError extends TalariaError<'usage'> {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
  }
}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

export function parse(command: string, argv: string[], options: OptionSpec): Parsed {
  try {
    const r = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: r.values as Parsed['values'], positionals: r.positionals };
  } catch (err) {
    // parseArgs messages are long and mention `strict`; keep the first sentence.
    const msg = (err as Error).message
      .split('\n')[0]!
      .split('. ')[0]!
      .replace(/\.$/, '')
      .replace(/^Option '(--\S+)(?: <value>)?' argument missing$/, "option '$1' needs a value");
    throw new UsageError(`${command}: ${msg.charAt(0).toLowerCase()}${msg.slice(1)}`);
  }
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function flag(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

/** One of `allowed`, or a usage error naming them. */
export function choice<T extends string>(
  command: string,
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  dflt: T,
): T {
  if (value === undefined) return dflt;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${command}: --${name} must be one of ${allowed.join(', ')} (got '${value}')`);
}

/**
 * Splits a command line like a POSIX shell would for one simple command: whitespace separates
 * words, 'single quotes' are literal, "double quotes" allow \" \\ \$ \` escapes, a backslash
 * outside quotes escapes the next character. No expansion of any kind. Throws on an open quote.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError('unterminated single quote in command');
      cur += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i]!;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          cur += line[i + 1] === '\n' ? '' : line[i + 1];
          i += 2;
        } else {
          cur += d;
          i++;
        }
      }
      if (!closed) throw new UsageError('unterminated double quote in command');
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') cur += line[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(cur);
  return words;
}
