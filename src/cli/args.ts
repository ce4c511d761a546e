/**
 * Argument parsing on node:util parseArgs (strict), with usage errors that become exit code 2
 * and a one-line message, and shell-like splitting for `--agent-cmd "CMD ARGS"`.
 */
import { parseArgs } from 'node:util';
import { TalariaError } from '../protocol/errors.js';
import { ShellSyntaxError, splitWords } from '../os/shell.js';

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

/** A command line given on the command line (--agent-cmd) as argv: os/shell.ts splitWords, a usage error when it cannot be split. */
export function splitCommand(line: string): string[] {
  try {
    return splitWords(line);
  } catch (e) {
    if (e instanceof ShellSyntaxError) throw new UsageError(`${e.message} in command`);
    throw e;
  }
}
