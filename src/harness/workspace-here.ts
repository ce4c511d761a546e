/**
 * A fleet member's workspaces are directories on it (docs/fleet.md §2): it makes no workspace row
 * for a path it does not have (another host's session continued here), and says which path is
 * missing instead of letting the agent fail to start in it. A single host's store (no host set)
 * keeps its old behaviour: the path is the user's word.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { TalariaError } from '../protocol/errors.js';
import type { WorkspacesRepo } from '../store/index.js';

const isDir = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

export function workspaceMissing(path: string): TalariaError {
  return new TalariaError('workspace_missing', `${path} does not exist on this host`, { path });
}

/** Before `workspaces.open(path)` makes or claims this host's row for `path`. */
export function checkWorkspaceHere(repo: Pick<WorkspacesRepo, 'host' | 'getByPath'>, path: string): void {
  const host = repo.host();
  if (host === '') return;
  const abs = resolve(path);
  // Already this host's: it was here (a directory removed since is the agent's to report).
  if (repo.getByPath(abs)?.hostId === host || isDir(abs)) return;
  throw workspaceMissing(abs);
}

/** Before an agent starts in `cwd` for a fleet member (a branch's cwd may be below its workspace). */
export function checkCwdHere(repo: Pick<WorkspacesRepo, 'host'>, cwd: string): void {
  if (repo.host() !== '' && !isDir(cwd)) throw workspaceMissing(resolve(cwd));
}
