/**
 * Real paths, symlinks followed: where a path really leads (dangling links and a missing tail
 * included: what a create would use), a root's real path, and whether one real path lies inside
 * another. protocol/roots.ts confines agent-supplied paths with these; the permission policy
 * judges the files a request would really reach with them.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Symlink hops followed by hand through dangling links before giving up (Linux uses 40). */
const MAX_LINK_HOPS = 40;

/**
 * A path whose real location cannot be found: a symlink loop (`reason: 'symlink_loop'`), or an
 * I/O error (`reason: 'io'`, `code` the errno name). `path` is the path as the caller asked for it.
 */
export class RealPathError extends Error {
  constructor(
    readonly reason: 'symlink_loop' | 'io',
    readonly path: string,
    readonly errno?: string,
  ) {
    super(
      reason === 'symlink_loop' ? `Too many levels of symbolic links: ${path}` : `Cannot resolve ${path}: ${errno}`,
    );
  }
}

/** True when `candidate` equals `root` or lies beneath it (both real, absolute). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  if (rel === '') return true;
  // `..foo` is a legal name inside; only a whole `..` segment means "above".
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The real path `p` would reach, following symlinks, including dangling ones and a missing tail
 * (what a create would use). `..` is folded lexically first. Rejects with a RealPathError on a
 * loop or an I/O error.
 */
export function realPathOf(p: string): Promise<string> {
  return realPathLoose(path.resolve(p), p);
}

/** A root's real path; a root that does not exist (yet) confines by its lexical path. */
export async function realRoot(root: string): Promise<string> {
  const abs = path.resolve(root);
  try {
    return await realpath(abs);
  } catch {
    return abs;
  }
}

/**
 * realpath for paths that may not exist: resolve the nearest existing ancestor, re-append the
 * rest, and follow dangling symlinks by hand (a write through one would land on its target).
 */
async function realPathLoose(p: string, requested: string, hops = 0): Promise<string> {
  try {
    return await realpath(p);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ELOOP') throw new RealPathError('symlink_loop', requested);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new RealPathError('io', requested, code ?? 'UNKNOWN');
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realPathLoose(parent, requested, hops);
  const candidate = path.join(realParent, path.basename(p));
  let isLink = false;
  try {
    isLink = (await lstat(candidate)).isSymbolicLink();
  } catch {
    return candidate; // does not exist: the re-appended path is what a create would use
  }
  if (!isLink) return candidate; // exists but not traversable (e.g. below a regular file)
  if (hops >= MAX_LINK_HOPS) throw new RealPathError('symlink_loop', requested);
  const target = await readlink(candidate);
  return realPathLoose(path.resolve(realParent, target), requested, hops + 1);
}

/** The errno name (`ENOENT`, …) of a Node error, if it has one. */
export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}
