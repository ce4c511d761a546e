/**
 * Whole-tree cleanup. spawnAgent puts each agent in its own process group; the group outlives
 * its leader while any child (a tool the agent started) is alive, so after the agent exited we
 * still signal the group: SIGTERM, a grace period, then SIGKILL. No orphans.
 */
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

/** Last resort at process exit (nothing can be awaited): SIGKILL every group we still own. */
const owned = new Set<number>();
let hooked = false;

function onExit(): void {
  for (const pgid of owned) signalGroup(pgid, 'SIGKILL');
}

export function ownGroup(pgid: number, killOnExit: boolean): void {
  if (!killOnExit || process.platform === 'win32') return;
  owned.add(pgid);
  if (!hooked) {
    hooked = true;
    process.on('exit', onExit);
  }
}

export function releaseGroup(pgid: number): void {
  owned.delete(pgid);
  if (owned.size === 0 && hooked) {
    hooked = false;
    process.off('exit', onExit);
  }
}

/** SIGKILL one group now (synchronous; for exit paths). */
export function killGroupSync(pgid: number): void {
  signalGroup(pgid, 'SIGKILL');
}
