/**
 * Confines agent-supplied paths (fs/*, terminal cwd) to a session's roots: its cwd plus any
 * additional directories. Containment is decided on REAL paths, so `..` and symlink escapes
 * (a link inside pointing out, a symlinked parent, a dangling link whose target is outside)
 * are all caught, while a root that is itself a symlink still works.
 *
 * Callers must do their I/O on the path returned here, never on the requested one: the
 * returned path is the one that was checked. A concurrent swap of a directory for a symlink
 * between check and use is caught at the use: client-fs.ts opens through os/safe-fs.ts (no link
 * followed in the last component, parents created one by one and checked, the opened file's
 * real location compared with this path).
 */
import path from 'node:path';
import { isInside, realPathOf, realRoot, RealPathError } from '../os/real-path.js';
import { RPC } from './errors.js';
import { RequestError } from './wire-error.js';

export interface ResolveOptions {
  /** Only changes the wording of errors; the containment rules are the same for reads and writes. */
  forWrite?: boolean;
}

/**
 * The real absolute path of `requestedPath` if it lies inside one of `roots`; otherwise a
 * RequestError -32602 (`data.reason`: 'not_absolute' | 'invalid_path' | 'outside_roots' | 'symlink_loop').
 * Only reads the filesystem (realpath/lstat/readlink); never creates anything.
 */
export async function resolveInsideRoots(
  roots: readonly string[],
  requestedPath: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (typeof requestedPath !== 'string' || requestedPath.length === 0) {
    throw new RequestError(RPC.INVALID_PARAMS, 'Path must be a non-empty string', {
      path: requestedPath,
      reason: 'invalid_path',
    });
  }
  if (requestedPath.includes('\0')) {
    throw new RequestError(RPC.INVALID_PARAMS, 'Path contains a NUL byte', {
      path: requestedPath,
      reason: 'invalid_path',
    });
  }
  if (!path.isAbsolute(requestedPath)) {
    throw new RequestError(
      RPC.INVALID_PARAMS,
      `Path must be absolute (ACP requires absolute paths): ${requestedPath}`,
      {
        path: requestedPath,
        reason: 'not_absolute',
      },
    );
  }

  // Lexical first: `..` is folded before any symlink is looked at.
  const real = await realPathOf(requestedPath).catch((e: unknown) => {
    throw wireError(e);
  });
  const realRoots = await Promise.all(roots.map((r) => realRoot(r)));

  if (realRoots.some((root) => isInside(root, real))) return real;

  const verb = options.forWrite ? 'write' : 'access';
  throw new RequestError(
    RPC.INVALID_PARAMS,
    `Refusing to ${verb} ${requestedPath}: it is outside the session's allowed directories`,
    {
      path: requestedPath,
      reason: 'outside_roots',
    },
  );
}

/** The RequestError a RealPathError stands for on the wire (the messages are RealPathError's). */
function wireError(e: unknown): unknown {
  if (!(e instanceof RealPathError)) return e;
  if (e.reason === 'symlink_loop')
    return new RequestError(RPC.INVALID_PARAMS, e.message, { path: e.path, reason: 'symlink_loop' });
  return new RequestError(RPC.INTERNAL_ERROR, e.message, { path: e.path, code: e.errno });
}
