/**
 * A command in a pseudo-terminal of its own, relayed over pipes: util-linux `script -qfec CMD
 * /dev/null` makes the pty (no native dependency; node-pty builds here but is a native addon the
 * server does not otherwise need). The size is set inside the pty before the command starts
 * (`stty cols C rows R`) and changed later with `stty -F /dev/pts/N`, which sends SIGWINCH to the
 * command like a terminal would. `script` puts the command in a session of its own, so a kill
 * reaches every process under the relay, not just the relay's group.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { TalariaError } from '../protocol/errors.js';
import { hasUtilLinuxScript, scriptArgs, shellLine } from '../os/shell.js';

export interface PtyProcess {
  /** The relay's pid (`script`, leader of its own process group). */
  readonly pid: number;
  onData(cb: (chunk: Buffer) => void): void;
  onExit(cb: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  write(data: string): void;
  resize(cols: number, rows: number): Promise<void>;
  /** SIGHUP to everything under the relay (as a closed terminal does), SIGKILL after `graceMs`. */
  kill(graceMs?: number): void;
  readonly exited: boolean;
}

/** Every process under `pid` (Linux /proc), children before their own children. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let kids = '';
      try {
        kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const k of kids.split(/\s+/).filter(Boolean).map(Number)) {
        out.push(k);
        walk(k);
      }
    }
  };
  walk(pid);
  return out;
}

/** The pty the command under `relay` reads (its stdin, `/dev/pts/N`), if it is running. */
export function ptyOf(relay: number): string | undefined {
  return descendants(relay)
    .map((p) => {
      try {
        return readlinkSync(`/proc/${p}/fd/0`);
      } catch {
        return '';
      }
    })
    .find((l) => l.startsWith('/dev/pts/'));
}

function signal(pid: number, sig: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig);
    } catch {
      /* gone already, or not a group leader */
    }
  }
}

export function spawnPty(
  command: string,
  args: readonly string[],
  o: { env: Record<string, string>; cwd: string; cols?: number; rows?: number },
): PtyProcess {
  if (!hasUtilLinuxScript())
    throw new TalariaError(
      'unsupported',
      'a terminal sign-in from the web needs util-linux `script` (Linux) on the server',
      {
        fix: 'Run `talaria login` in a terminal on the server instead.',
      },
    );
  const size = o.cols && o.rows ? `stty cols ${o.cols} rows ${o.rows} 2>/dev/null; ` : '';
  const line = `${size}exec ${shellLine([command, ...args])}`;
  const child = spawn('script', scriptArgs(line), {
    cwd: o.cwd,
    env: { ...o.env, SHELL: '/bin/sh', TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let exited = false;
  const exits: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  let spawnError: Error | undefined;
  child.on('error', (e) => (spawnError = e));
  child.stdin.on('error', () => undefined);
  child.once('close', (code, sig) => {
    exited = true;
    for (const cb of exits) cb(spawnError ? 127 : code, sig);
  });
  return {
    pid: child.pid ?? -1,
    get exited() {
      return exited;
    },
    onData(cb) {
      child.stdout.on('data', cb);
      child.stderr.on('data', cb);
    },
    onExit(cb) {
      if (exited) cb(child.exitCode, child.signalCode);
      else exits.push(cb);
    },
    write(data) {
      if (!exited) child.stdin.write(data);
    },
    async resize(cols, rows) {
      const pts = ptyOf(child.pid ?? -1);
      if (!pts) return;
      await new Promise<void>((resolve) =>
        execFile('stty', ['-F', pts, 'cols', String(cols), 'rows', String(rows)], () => resolve()),
      );
    },
    kill(graceMs = 1000) {
      if (child.pid === undefined) return;
      const all = [child.pid, ...descendants(child.pid)];
      for (const p of all) signal(p, 'SIGHUP');
      // What ignores the hangup is killed; pids are the ones seen now (the command may have forked).
      setTimeout(() => {
        for (const p of all) signal(p, 'SIGKILL');
      }, graceMs).unref();
    },
  };
}
