/**
 * Every process an agent started, found even after it left the agent's process group.
 *
 * Agents run tools in their own session (Claude Code: setsid), and double-forked daemons are
 * re-parented to init, so neither the agent's process group nor its children list reaches them.
 * What does: each agent process gets a random, per-process tag in its environment
 * (AGENT_TAG_VAR), which every descendant inherits through fork, exec, setsid and re-parenting.
 * A process belongs to an agent's tree when it carries that agent's tag and started after the
 * agent did, or descends (through its parent chain) from the agent or from such a process.
 *
 * The tag is not a credential and not derived from one. It only ever selects processes for
 * Talaria to end, and only processes that carry it, started after the agent, and are not
 * Talaria itself or one of its ancestors: a process can mark only itself, which it could
 * equally end by itself, so an agent cannot use the tag to make Talaria end anyone else's work.
 * Processes are re-identified by (pid, start time) right before each signal, so a recycled pid
 * is never signalled.
 *
 * Without /proc (macOS, Windows) nothing is found here; process-group signals still apply.
 */
import { randomBytes } from 'node:crypto';
import { isDead, procSupported, readProcs, readStat, type ProcRow } from './proc-scan.js';

export {
  AGENT_TAG_VAR,
  TICKS_PER_SECOND,
  bootTicks,
  pidAlive,
  procSupported,
  readStat,
  type ProcRow,
} from './proc-scan.js';

/** A fresh random tag for one agent process. */
export function newAgentTag(): string {
  return randomBytes(18).toString('base64url');
}

export interface TreeQuery {
  tag: string;
  agentPid: number;
  /** The agent's start time (ticks since boot): nothing older is ever its work. */
  agentStart: number;
  /**
   * A cancelled turn: only work started in it (at or after `from`), and not while other work
   * ran on the agent (`foreign` windows, inclusive; such processes are reported as `left`). The
   * agent itself and its helpers (processes still in its own group and still its descendants:
   * the agent got the cancel and answers for those) are kept.
   */
  turn?: { from: number; foreign: readonly (readonly [number, number])[] };
}

export interface Selection {
  /** To be ended. */
  doomed: ProcRow[];
  /** Started in the turn, but while other sessions' work ran too: whose they are cannot be told. */
  left: ProcRow[];
}

/** Pure: which processes of `procs` belong to the query's agent tree (and, for a turn, to that turn). */
export function selectTree(procs: ReadonlyMap<number, ProcRow>, q: TreeQuery, self = process.pid): Selection {
  const keep = new Set<number>([0, 1]);
  for (
    let p: ProcRow | undefined = procs.get(self), hops = 0;
    p && hops < 4096 && !keep.has(p.pid);
    p = procs.get(p.ppid), hops++
  )
    keep.add(p.pid);
  keep.add(self);

  const children = new Map<number, number[]>();
  for (const r of procs.values()) {
    if (r.start < q.agentStart || isDead(r)) continue;
    const list = children.get(r.ppid);
    if (list) list.push(r.pid);
    else children.set(r.ppid, [r.pid]);
  }
  const agent = procs.get(q.agentPid);
  const agentAlive = agent !== undefined && agent.start === q.agentStart && !isDead(agent);

  const tree = new Set<number>();
  const queue: number[] = [];
  const add = (pid: number): void => {
    if (tree.has(pid) || keep.has(pid)) return;
    tree.add(pid);
    queue.push(pid);
  };
  if (agentAlive) add(q.agentPid);
  for (const r of procs.values()) if (r.tag === q.tag && r.start >= q.agentStart && !isDead(r)) add(r.pid);
  while (queue.length) for (const c of children.get(queue.pop()!) ?? []) add(c);

  const rows = [...tree].map((pid) => procs.get(pid)!);
  if (!q.turn) return { doomed: rows, left: [] };

  const descendsFromAgent = (r: ProcRow): boolean => {
    for (let p = procs.get(r.ppid), hops = 0; p && hops < 4096; p = procs.get(p.ppid), hops++)
      if (p.pid === q.agentPid) return agentAlive;
    return false;
  };
  const helper = (r: ProcRow) => r.pid === q.agentPid || (agentAlive && r.pgid === q.agentPid && descendsFromAgent(r));
  const { from, foreign } = q.turn;
  const verdicts = new Map<number, 'doomed' | 'left' | 'earlier'>();
  // A process belongs where its nearest non-helper ancestor in the tree started (a tool's children are the tool's).
  const verdict = (r: ProcRow): 'doomed' | 'left' | 'earlier' => {
    const known = verdicts.get(r.pid);
    if (known) return known;
    const parent = procs.get(r.ppid);
    let v: 'doomed' | 'left' | 'earlier';
    if (parent && tree.has(parent.pid) && !helper(parent)) v = verdict(parent);
    else if (r.start < from) v = 'earlier';
    else v = foreign.some(([a, b]) => r.start >= a && r.start <= b) ? 'left' : 'doomed';
    verdicts.set(r.pid, v);
    return v;
  };
  const doomed: ProcRow[] = [];
  const left: ProcRow[] = [];
  for (const r of rows) {
    if (helper(r)) continue;
    const v = verdict(r);
    if (v === 'doomed') doomed.push(r);
    else if (v === 'left') left.push(r);
  }
  return { doomed, left };
}

/** The agent's tree (or a turn's part of it) as it is now. */
export function scanTree(q: TreeQuery): Selection {
  return selectTree(readProcs(new Set([q.tag]), q.agentStart), q);
}

export interface ReapResult {
  ended: ProcRow[];
  /** Still alive after SIGKILL (another user's process after a setuid exec, uninterruptible sleep). */
  survived: ProcRow[];
  left: ProcRow[];
}

/** After SIGKILL the kernel needs a moment to tear a process down. */
const KILL_WAIT_MS = 1000;
const POLL_MS = 20;

/**
 * Ends what `scan` selects: SIGTERM, up to `graceMs` for it to go, a second scan (which also
 * catches what forked meanwhile), SIGKILL for whatever is still there.
 */
/** SIGKILL rounds at most (each a scan): forks racing the kill are caught in the next. */
const KILL_ROUNDS = 5;

export async function endTree(scan: () => Selection, graceMs: number): Promise<ReapResult> {
  if (!procSupported()) return { ended: [], survived: [], left: [] };
  const first = scan();
  if (first.doomed.length === 0) return { ended: [], survived: [], left: first.left };
  if (graceMs > 0) {
    signalAll(first.doomed, 'SIGTERM');
    await until(() => first.doomed.every(gone), graceMs);
  }
  const second = scan();
  const byPid = new Map<number, ProcRow>();
  for (const r of [...first.doomed, ...second.doomed]) byPid.set(r.pid, r);
  let stubborn = [...byPid.values()].filter((r) => !gone(r));
  const killed: ProcRow[] = [];
  // A process may fork between a scan and its SIGKILL (a TERM trap that spawns): scan again
  // until a scan finds nobody new, so no child of the tree is left running.
  for (let round = 0; stubborn.length > 0 && round < KILL_ROUNDS; round++) {
    signalAll(stubborn, 'SIGKILL');
    killed.push(...stubborn);
    await until(() => stubborn.every(gone), KILL_WAIT_MS);
    stubborn = scan().doomed.filter((r) => !byPid.has(r.pid) && !gone(r));
    for (const r of stubborn) byPid.set(r.pid, r);
  }
  const survived = [...killed, ...stubborn].filter((r) => !gone(r));
  return { ended: [...byPid.values()].filter((r) => !survived.includes(r)), survived, left: second.left };
}

/** For exit paths that cannot wait: SIGKILL now to every selected process of every query (one /proc read). */
export function killTreesSync(queries: readonly TreeQuery[]): number {
  if (queries.length === 0 || !procSupported()) return 0;
  const procs = readProcs(new Set(queries.map((q) => q.tag)), Math.min(...queries.map((q) => q.agentStart)));
  let n = 0;
  for (const q of queries) n += signalAll(selectTree(procs, q).doomed, 'SIGKILL');
  return n;
}

/** Signals each process that is still the same one (pid and start time); returns how many were signalled. */
export function signalAll(rows: readonly ProcRow[], signal: NodeJS.Signals): number {
  let n = 0;
  for (const r of rows) {
    if (gone(r)) continue;
    try {
      process.kill(r.pid, signal);
      n++;
    } catch {
      /* gone meanwhile, or not ours to signal */
    }
  }
  return n;
}

export function gone(r: ProcRow): boolean {
  const now = readStat(r.pid);
  return !now || now.start !== r.start || isDead(now);
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
}
