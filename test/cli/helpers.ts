/**
 * Runs the real `talaria` command (bin/talaria.js: the built dist/ when it is fresh, as users run it, else the sources through tsx) as a child process, and drives it
 * in tmux for the interactive tests. Every wait is on a condition (output seen, process exit),
 * bounded by the test timeout or an explicit deadline.
 */
import { createServer } from 'node:net';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterFile } from '../file-end.js';
import { quoteArg, shellLine } from '../../src/os/shell.js';
import { modesApply } from '../file-modes.js';
import { nodeArgs, nodeCommand } from '../prebuilt.js';

export const TSX = import.meta.resolve('tsx');
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/talaria.js', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2', import.meta.url));

/** `--agent-cmd` value for a fault executable in test/fakes/bin (tsx by absolute URL: the cwd has no node_modules). */
export function fakeCmd(name: string): string {
  const file = fileURLToPath(new URL(`../fakes/bin/${name}.ts`, import.meta.url));
  return `${nodeCommand(file)}`;
}

const made: string[] = [];
afterFile(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A free loopback port (the OS picks it; the probe is closed again). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export function tempDir(prefix = 'cli'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `talaria-${prefix}-`)));
  made.push(d);
  return d;
}

/** Demo settings for tests: no streaming delay, isolated demo and Talaria stores (never ~/.talaria). */
export function demoEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TALARIA_DEMO_HOME: home,
    TALARIA_HOME: join(home, 'talaria'),
    TALARIA_DEMO_CHUNK_DELAY_MS: '0',
    NO_COLOR: '1',
    ...extra,
  };
}

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when `pred(stdout, stderr)` holds (checked on every chunk). */
  until(pred: (out: string, err: string) => boolean): Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `modesApply`: file modes apply to the CLI even as root (the read-only store tests; test/file-modes.ts). */
export function startCli(
  args: string[],
  o: { cwd: string; env?: Record<string, string>; input?: string; modesApply?: boolean },
): CliRun {
  const run = o.modesApply
    ? modesApply(process.execPath, [BIN, ...args])
    : { command: process.execPath, args: [BIN, ...args] };
  const child = spawn(run.command, run.args, {
    cwd: o.cwd,
    // Talaria's store goes to a temp home unless the test chose one.
    env: { ...process.env, TALARIA_HOME: join(tempDir('home'), 'talaria'), ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { pred: (o: string, e: string) => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.pred(out, err)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => ((out += c), check()));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => ((err += c), check()));
  if (o.input !== undefined) child.stdin!.end(o.input);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
    },
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    until: (pred) =>
      new Promise<void>((resolve, reject) => {
        if (pred(out, err)) return resolve();
        waiters.push({ pred, resolve });
        void done.then(() => {
          if (!pred(out, err))
            reject(new Error(`CLI exited before the expected output.\nstdout:\n${out}\nstderr:\n${err}`));
        });
      }),
    done,
  };
}

/** Runs the CLI to completion (stdin closed unless `input` is given). */
export function runCli(
  args: string[],
  o: { cwd: string; env?: Record<string, string>; input?: string; modesApply?: boolean },
) {
  return startCli(args, { ...o, input: o.input ?? '' }).done;
}

export function ndjsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// ---- tmux ------------------------------------------------------------------------------------

export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A private tmux server (own socket) running one command in a pane of a fixed size. */
export class TmuxPane {
  // A socket in a temp dir of ours (removed after the file's tests), never the user's tmux server.
  private readonly socket = join(tempDir('tmux'), 'sock');

  constructor(command: string[], o: { cwd: string; env: Record<string, string>; width?: number; height?: number }) {
    const env = Object.entries(o.env)
      .map(([k, v]) => `${k}=${quoteArg(v)}`)
      .join(' ');
    // The pane stays open after the CLI exits so its exit code can be read.
    const line = `env ${env} ${shellLine(command)}; echo "EXITED=$?"; exec sleep 600`;
    this.tmux([
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(o.width ?? 110),
      '-y',
      String(o.height ?? 45),
      '-c',
      o.cwd,
      line,
    ]);
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** The screen plus scrollback, as plain text. */
  capture(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-500', '-t', 'main']);
  }

  type(text: string): void {
    this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...keys]);
  }

  /** Polls the pane until `pred` holds; fails with the screen after `ms`. */
  async waitFor(pred: (screen: string) => boolean, ms = 15_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const screen = this.capture();
      if (pred(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`tmux pane never matched; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}

/**
 * `talaria run 'edit notes.txt'` (demo agent) on a terminal: answers its permission question with
 * y and returns the screen once the process exited (the pane prints EXITED=code).
 */
export async function allowEditOnPane(pane: TmuxPane): Promise<string> {
  await pane.waitFor((s) => s.includes('Permission: Edit notes.txt — allow? [y]es once / [a]lways / [n]o:'));
  pane.type('y');
  pane.keys('Enter');
  return pane.waitFor((s) => s.includes('EXITED='));
}

/**
 * A Talaria home whose config.json defines `authfake` (test/fakes/bin/auth-agent.ts), a workspace
 * beside it, and the file the agent's sign-in writes (its key).
 */
export function authFakeHome(
  prefix: string,
  extraArgs: string[] = [],
): { home: string; cwd: string; agentConfig: string } {
  const root = tempDir(prefix);
  const home = join(root, 'talaria');
  const cwd = join(root, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd);
  const agentConfig = join(root, 'agent-config.json');
  const agent = fileURLToPath(new URL('../fakes/bin/auth-agent.ts', import.meta.url));
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      agents: {
        authfake: { command: process.execPath, args: [...nodeArgs(agent), '--config', agentConfig, ...extraArgs] },
      },
    }),
  );
  return { home, cwd, agentConfig };
}
