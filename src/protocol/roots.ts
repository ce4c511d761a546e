/**
 * Confines agent-supplied paths (fs/*, terminal cwd) to a session's roots: its cwd plus any
 * additional directories. Containment is decided on REAL paths, so `..` and symlink escapes
 * (a link inside pointing out, a symlinked parent, a dangling link whose target is outside)
 * are all caught, while a root that is itself a symlink still works.
 *
 * Callers must do their I/O on the path returned here, never on the requested one: the
 * returned path is the one that was checked. A concurrent swap of a directory for a symlink
 * between check and use is caught at the use: client-fs.ts opens through safe-fs.ts (no link
 * followed in the last component, parents created one by one and checked, the opened file's
 * real location compared with this path).
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { RPC, WireError } from './errors.js';

export interface ResolveOptions {
  /** Only changes the wording of errors; the containment rules are the same for reads and writes. */
  forWrite?: boolean;
}

/** Symlink hops followed by hand through dangling links before giving up (Linux uses 40). */
const MAX_LINK_HOPS = 40;

/**
 * The real absolute path of `requestedPath` if it lies inside one of `roots`; otherwise a
 * WireError -32602 (`data.reason`: 'not_absolute' | 'invalid_path' | 'outside_roots' | 'symlink_loop').
 * Only reads the filesystem (realpath/lstat/readlink); never creates anything.
 */
export async function resolveInsideRoots(roots: readonly string[], requestedPath: string, options: ResolveOptions = {}): Promise<string> {
  if (typeof requestedPath !== 'string' || requestedPath.length === 0) {
    throw new WireError(RPC.INVALID_PARAMS, 'Path must be a non-empty string', {
      path: requestedPath,
      reason: 'invalid_path',
    });
  }
  if (requestedPath.includes('\0')) {
    throw new WireError(RPC.INVALID_PARAMS, 'Path contains a NUL byte', { path: requestedPath, reason: 'invalid_path' });
  }
  if (!path.isAbsolute(requestedPath)) {
    throw new WireError(RPC.INVALID_PARAMS, `Path must be absolute (ACP requires absolute paths): ${requestedPath}`, {
      path: requestedPath,
      reason: 'not_absolute',
    });
  }

  // Lexical first: `..` is folded before any symlink is looked at.
  const lexical = path.resolve(requestedPath);
  const real = await realPathLoose(lexical, requestedPath);
  const realRoots = await Promise.all(roots.map((r) => realRoot(r)));

  if (realRoots.some((root) => isInside(root, real))) return real;

  const verb = options.forWrite ? 'write' : 'access';
  throw new WireError(RPC.INVALID_PARAMS, `Refusing to ${verb} ${requestedPath}: it is outside the session's allowed directories`, {
    path: requestedPath,
    reason: 'outside_roots',
  });
}

/** True when `candidate` equals `root` or lies beneath it (both real, absolute). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  if (rel === '') return true;
  // `..foo` is a legal name inside; only a whole `..` segment means "above".
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The real path `p` (absolute) would reach, following symlinks, including dangling ones and
 * a missing tail (what a create would use). Rejects with a WireError on a loop or an I/O error.
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
    if (code === 'ELOOP') throw loopError(requested);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsError(e, requested);
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
  if (hops >= MAX_LINK_HOPS) throw loopError(requested);
  const target = await readlink(candidate);
  return realPathLoose(path.resolve(realParent, target), requested, hops + 1);
}

function loopError(requested: string): WireError {
  return new WireError(RPC.INVALID_PARAMS, `Too many levels of symbolic links: ${requested}`, {
    path: requested,
    reason: 'symlink_loop',
  });
}

function fsError(e: unknown, requested: string): WireError {
  const code = errCode(e) ?? 'UNKNOWN';
  return new WireError(RPC.INTERNAL_ERROR, `Cannot resolve ${requested}: ${code}`, { path: requested, code });
}

export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
}
