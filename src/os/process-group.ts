/**
 * Signalling a child and everything it started, one way. Talaria starts every child it must be
 * able to stop (agents, terminals, short commands, npm) as the leader of its own process group
 * (`detached: true` = setsid), so one signal to the group reaches what the child forked too.
 * Windows has no groups: the process itself is signalled.
 */

/** Signals `pid`'s process group; false when nothing is left to signal (or `pid` is unknown). */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
    return true;
  } catch {
    return false;
  }
}
