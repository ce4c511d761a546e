/**
 * Fills in a subject's `realPaths` / `realRoots` (symlinks resolved) so the policy judges the
 * files a request would really reach, not only their names. Relative paths (no root to resolve
 * them against) are kept as they are; a path that cannot be resolved (a loop, no permission)
 * keeps its name, which the agent cannot write through either.
 */
import { isAbsolute } from 'node:path';
import { realPathOf, realRoot } from '../os/real-path.js';
import type { PermissionSubject } from './types.js';

export type ResolvePaths = (subject: PermissionSubject) => Promise<PermissionSubject>;

export const resolveRealPaths: ResolvePaths = async (subject) => {
  const realPaths =
    subject.realPaths ??
    (await Promise.all(subject.paths.map((p) => (isAbsolute(p) ? realPathOf(p).catch(() => p) : Promise.resolve(p)))));
  const realRoots =
    subject.realRoots ??
    (await Promise.all(subject.roots.map((r) => (isAbsolute(r) ? realRoot(r) : Promise.resolve(r)))));
  return { ...subject, realPaths, realRoots };
};
