/**
 * Reading Linux /proc for the process reaper (proc-tree.ts): each process's parent, group,
 * session and start time (/proc/PID/stat), and whether its environment carries an agent tag
 * (/proc/PID/environ; the kernel shows it only for processes we may signal anyway). Every read
 * is synchronous and small: the exit hook, which cannot wait, uses the same code. Elsewhere
 * (macOS, Windows) `procSupported()` is false and callers fall back to process-group signals.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/** The environment variable that marks every process an agent starts (see proc-tree.ts). */
export const AGENT_TAG_VAR = 'TALARIA_AGENT_TAG';

/** /proc/PID/stat's start time unit: USER_HZ, 100 on every Linux architecture Node supports. */
export const TICKS_PER_SECOND = 100;

export interface ProcRow {
  pid: number;
  ppid: number;
  /** Process group and session (setsid makes a new one of each). */
  pgid: number;
  sid: number;
  /** Start time, in clock ticks since boot. With the pid it names one process for good. */
  start: number;
  /** R, S, D, T, Z (zombie: already dead), X … */
  state: string;
  /** The executable's name as the kernel keeps it (15 characters, never the arguments). */
  comm: string;
  /** The agent tag found in its environment (only looked for when asked). */
  tag?: string;
  /** The kernel's per-process flags (stat field 9): PF_EXITING once it has begun to exit. */
  flags?: number;
}

export function procSupported(): boolean {
  return process.platform === 'linux' && readStat(process.pid) !== undefined;
}

/** Now, in the unit of ProcRow.start (from /proc/uptime); undefined without /proc. */
export function bootTicks(): number | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/uptime', 'latin1');
  } catch {
    return undefined;
  }
  // "350735.47 1363631.83": integer arithmetic, no float rounding at the tick boundary.
  const m = /^(\d+)(?:\.(\d{1,2}))?/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * TICKS_PER_SECOND + Number((m[2] ?? '0').padEnd(2, '0'));
}

/** Parses /proc/PID/stat. The name sits in parentheses and may itself hold spaces and ')'. */
export function parseStat(text: string): ProcRow | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state); starttime is field 22.
  const row = {
    pid,
    comm: text.slice(open + 1, close),
    state: f[0] ?? '',
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    sid: Number(f[3]),
    start: Number(f[19]),
    flags: Number(f[6]),
  };
  return Number.isInteger(row.pid) && Number.isInteger(row.ppid) && Number.isFinite(row.start) ? row : undefined;
}

export function readStat(pid: number, scratch: Scratch = { buf: Buffer.allocUnsafe(1024) }): ProcRow | undefined {
  const data = readProcFile(`/proc/${pid}/stat`, scratch);
  return data ? parseStat(data.toString('latin1')) : undefined; // undefined: gone, or no /proc
}

/** A reusable read buffer, owned by one scan (it grows for large environments). */
export interface Scratch {
  buf: Buffer;
}

/**
 * One /proc file, read whole into `scratch` (valid until the next read). Twice as fast as
 * readFileSync here, which matters when a scan reads every process's file.
 */
function readProcFile(path: string, scratch: Scratch): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let len = 0;
    for (;;) {
      if (len === scratch.buf.length) {
        const bigger = Buffer.allocUnsafe(scratch.buf.length * 2);
        scratch.buf.copy(bigger, 0, 0, len);
        scratch.buf = bigger;
      }
      const n = readSync(fd, scratch.buf, len, scratch.buf.length - len, null);
      if (n === 0) return scratch.buf.subarray(0, len);
      len += n;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Zombies and dying processes hold no resources and run no code: as good as gone. */
export function isDead(row: ProcRow): boolean {
  return row.state === 'Z' || row.state === 'X' || row.state === 'x';
}

/**
 * Whether `pid` names a process that can still run: it exists (another user's counts) and, where
 * /proc says, is not a zombie. A pid can be reused: callers that must know it is the same process
 * compare `readStat(pid).start`.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const row = readStat(pid);
  return row ? !isDead(row) : !procSupported(); // no row with /proc: it exited just now
}

const PF_EXITING = 0x4;
/** SIGHUP, SIGINT, SIGKILL, SIGTERM as bits of /proc's signal masks (bit n−1 for signal n). */
const FATAL = (1n << 0n) | (1n << 1n) | (1n << 8n) | (1n << 14n);

/**
 * Killed but not gone yet: it has begun to exit, or a fatal signal it does not ignore is pending
 * (on a busy machine a signalled process may wait a while for a core to die on). Its children
 * are re-parented only once it has exited.
 */
export function isDying(pid: number): boolean {
  const row = readStat(pid);
  if (!row || isDead(row)) return false;
  if (row.flags !== undefined && (row.flags & PF_EXITING) !== 0) return true;
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return false;
  }
  const mask = (name: string): bigint => {
    const m = new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm').exec(status);
    return m ? BigInt(`0x${m[1]}`) : 0n;
  };
  // SIGKILL cannot be ignored; the others count unless the process ignores them.
  const pending = (mask('SigPnd') | mask('ShdPnd')) & FATAL;
  return (pending & ~mask('SigIgn')) !== 0n || (pending & (1n << 8n)) !== 0n;
}

/** Every process on the machine; `tags` are looked up in the environment of those started at or after `since`. */
export function readProcs(tags: ReadonlySet<string> = new Set(), since = 0): Map<number, ProcRow> {
  const out = new Map<number, ProcRow>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  const scratch: Scratch = { buf: Buffer.allocUnsafe(16 * 1024) };
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const row = readStat(Number(name), scratch);
    if (!row) continue;
    // Older processes cannot be an agent's work: their environment is not even read.
    if (tags.size > 0 && row.start >= since && !isDead(row)) {
      const tag = tagOf(row.pid, tags, scratch);
      if (tag !== undefined) row.tag = tag;
    }
    out.set(row.pid, row);
  }
  return out;
}

const PREFIX = Buffer.from(`${AGENT_TAG_VAR}=`);

/** The value of AGENT_TAG_VAR in the process's environment, when it is one of `tags`. */
export function tagOf(
  pid: number,
  tags: ReadonlySet<string>,
  scratch: Scratch = { buf: Buffer.allocUnsafe(16 * 1024) },
): string | undefined {
  const env = readProcFile(`/proc/${pid}/environ`, scratch);
  return env ? findTag(env, tags) : undefined;
}

/** Finds `NAME=value` at the start of an entry of a NUL-separated environment block. */
export function findTag(env: Buffer, tags: ReadonlySet<string>): string | undefined {
  for (let at = env.indexOf(PREFIX); at >= 0; at = env.indexOf(PREFIX, at + 1)) {
    if (at > 0 && env[at - 1] !== 0) continue; // "XTALARIA_AGENT_TAG=…" is another variable
    const from = at + PREFIX.length;
    const end = env.indexOf(0, from);
    const value = env.toString('latin1', from, end < 0 ? env.length : end);
    return tags.has(value) ? value : undefined;
  }
  return undefined;
}
