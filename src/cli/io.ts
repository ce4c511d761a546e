/**
 * The CLI's terminal plumbing: which streams, whether they take colour (NO_COLOR, FORCE_COLOR,
 * TTY), a stderr logger for --verbose, and a progress line while an agent starts or loads.
 * Results go to stdout; progress, logs and warnings to stderr.
 */
import type { Logger } from '../protocol/types.js';

export interface OutStream {
  /** Bytes only from faces that write pre-encoded output (`talaria acp`); text everywhere else. */
  write(chunk: string | Uint8Array): boolean;
  /** 'drain' after a write returned false (a stream that may stay full: `talaria acp`'s stdout). */
  once?(event: 'drain', listener: () => void): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Made on first use: Node builds the stdin stream when it is first read, and a run whose
    // prompt is an argument and whose stderr is not a terminal never needs it (issue 16).
    get stdin() {
      return process.stdin;
    },
    env: process.env,
  };
}

/** https://no-color.org: any non-empty NO_COLOR disables colour; FORCE_COLOR (not 0) forces it. */
export function colorEnabled(stream: OutStream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * Library logs (errors, or everything with --verbose) as one stderr line each. `before` runs
 * ahead of each line (`talaria run` ends the answer's open line with it).
 */
export function stderrLogger(stderr: OutStream, verbose: boolean, before?: () => void): Logger {
  const line = (level: string, msg: string, data?: Record<string, unknown>) => {
    const extra = data && Object.keys(data).length > 0 ? ` ${safeJson(data)}` : '';
    before?.();
    stderr.write(`talaria ${level}: ${msg}${extra}\n`);
  };
  return {
    debug: (m, d) => verbose && line('debug', m, d),
    info: (m, d) => verbose && line('info', m, d),
    warn: (m, d) => verbose && line('warn', m, d),
    error: (m, d) => line('error', m, d),
  };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  /** Shows (or replaces) the current step. */
  step(text: string): void;
  /** Clears the spinner; prints `final` (if given) as a permanent line. */
  done(final?: string): void;
}

/**
 * A spinner on a TTY (redrawn in place, timer unref'd so it never keeps the process alive);
 * elsewhere one plain line per step, so logs stay readable.
 */
export function createProgress(stream: OutStream, opts: { tty: boolean; quiet?: boolean }): Progress {
  if (opts.quiet) return { step() {}, done() {} };
  if (!opts.tty) {
    return {
      step: (text) => void stream.write(`${text}\n`),
      done: (final) => void (final !== undefined && stream.write(`${final}\n`)),
    };
  }
  let text = '';
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => void stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text}`);
  return {
    step(t) {
      text = t;
      draw();
      if (!timer) {
        timer = setInterval(draw, 80);
        timer.unref();
      }
    },
    done(final) {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (text !== '') stream.write('\r\x1b[2K');
      text = '';
      if (final !== undefined) stream.write(`${final}\n`);
    },
  };
}
