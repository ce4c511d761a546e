/**
 * Whole-tree cleanup. spawnAgent puts each agent in its own process group and tags its
 * environment; the group outlives its leader while any child is alive, and tools that left the
 * group (setsid, double fork) still carry the tag (src/os/proc-tree.ts). After an agent
 * exits we signal its group (SIGTERM, a grace period, SIGKILL) and its process ends whatever
 * else carries its tag. No orphans.
 *
 * What must still happen if this process exits without shutdown() belongs to the host that owns
 * the agents (AgentTrees below), not to the module: two hosts in one process keep their own
 * lists and their own exit hook, and dispose() takes a host's hook away.
 */
import { killTreesSync, type TreeQuery } from '../os/proc-tree.js';

export function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    /* gone */
  }
}

/** SIGTERM the group, wait up to `graceMs` for it to empty, then SIGKILL. */
export async function killGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupAlive(pgid)) await new Promise((r) => setTimeout(r, 20));
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
}

/** SIGKILL one group now (synchronous; for exit paths). */
export function killGroupSync(pgid: number): void {
  signalGroup(pgid, 'SIGKILL');
}

/** One live agent process of a host: its group (= its pid) and what names its tree. */
export interface OwnedAgent {
  pid: number;
  tag: string;
  /** Ticks since boot; undefined where /proc is missing (then only the group is reachable). */
  start: number | undefined;
}

/** The agent processes one host owns, and its last-resort exit hook. */
export class AgentTrees {
  private readonly live = new Map<number, OwnedAgent>();
  private hooked = false;
  private readonly onExit = (): void => this.killAllSync();

  /** `killOnExit`: SIGKILL every tree still owned if the process exits without shutdown(). */
  constructor(private readonly killOnExit: boolean) {}

  own(agent: OwnedAgent): void {
    this.live.set(agent.pid, agent);
    if (this.killOnExit && !this.hooked && process.platform !== 'win32') {
      this.hooked = true;
      // One listener per live host is intended, not a leak: raise the warning threshold with it.
      bumpMaxListeners(1);
      process.on('exit', this.onExit);
    }
  }

  release(pid: number): void {
    this.live.delete(pid);
    if (this.live.size === 0) this.unhook();
  }

  get size(): number {
    return this.live.size;
  }

  /** For exit paths that cannot wait: SIGKILL every owned group and every tagged process, now. */
  killAllSync(): void {
    const queries: TreeQuery[] = [];
    for (const a of this.live.values()) {
      killGroupSync(a.pid);
      if (a.start !== undefined) queries.push({ tag: a.tag, agentPid: a.pid, agentStart: a.start });
    }
    killTreesSync(queries);
  }

  /** Forget everything and take the exit hook away (after shutdown, or to hand the processes over). */
  dispose(): void {
    this.live.clear();
    this.unhook();
  }

  private unhook(): void {
    if (!this.hooked) return;
    this.hooked = false;
    process.off('exit', this.onExit);
    bumpMaxListeners(-1);
  }
}

function bumpMaxListeners(by: number): void {
  const n = process.getMaxListeners();
  if (n !== 0 && Number.isFinite(n)) process.setMaxListeners(Math.max(1, n + by));
}
