/**
 * File operations on a path that was checked inside the session's roots, done so that a
 * concurrent swap (a directory replaced by a symlink between the check and the use) cannot
 * redirect them: the last component is opened without following links (O_NOFOLLOW), FIFOs do
 * not block (O_NONBLOCK), missing parents are created one at a time and each checked, and on
 * Linux the opened descriptor's real location (/proc/self/fd) is compared with the checked path
 * — before reading, and before and after the rename that publishes a write. Elsewhere the
 * parent directory's real path is re-checked instead (a smaller window, not none).
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The checked path no longer leads where it did (something was swapped meanwhile). */
export class PathChangedError extends Error {
  readonly code = 'PATH_CHANGED';
}

/** Where an open descriptor really is, where the OS says (Linux); undefined elsewhere. */
export async function openedPath(fh: FileHandle): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return undefined;
  }
}

async function assertOpenedAt(fh: FileHandle, expected: string): Promise<void> {
  const at = await openedPath(fh);
  if (at !== undefined) {
    if (at !== expected) throw new PathChangedError(`${expected} now leads to ${at}`);
    return;
  }
  const dir = path.dirname(expected);
  if ((await realpath(dir)) !== dir) throw new PathChangedError(`${dir} is no longer a plain directory`);
}

/** Opens the checked real path for reading: no symlink followed, no FIFO wait, location verified. */
export async function openForRead(real: string): Promise<FileHandle> {
  const fh = await open(real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    await assertOpenedAt(fh, real);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/**
 * Creates the missing directories of `dir` (a checked real path) one by one, each verified to
 * be a directory and not a link, so a create never follows a symlink out of the roots.
 */
export async function makeParents(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const st = await lstat(d);
      if (st.isSymbolicLink()) throw new PathChangedError(`${d} became a symbolic link`);
      if (!st.isDirectory()) throw Object.assign(new Error(`${d} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
      missing.unshift(d);
      if (path.dirname(d) === d) break;
    }
  }
  for (const m of missing) {
    try {
      await mkdir(m);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'EEXIST') throw e;
    }
    const st = await lstat(m);
    if (!st.isDirectory()) throw new PathChangedError(`${m} is not a plain directory`);
  }
}

/**
 * Temp file in the same directory (created exclusively, never through a link), fsync, then
 * rename: readers see the old file or the new one, never half of it. Keeps the old file's mode
 * (and owner, when we are allowed to). If the published file did not land at `real` (a swap
 * raced the rename), it is removed and PathChangedError thrown.
 */
export async function writeAtomic(real: string, content: string, existing: Stats | undefined): Promise<void> {
  const tmp = path.join(path.dirname(real), `.${path.basename(real)}.talaria-${randomBytes(6).toString('hex')}.tmp`);
  const mode = existing ? existing.mode & 0o7777 : 0o666;
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
  let renamed = false;
  try {
    await assertOpenedAt(fh, tmp);
    await fh.writeFile(content, 'utf8');
    await fh.sync();
    if (existing) {
      // open()'s mode is filtered by the umask; set it exactly.
      await fh.chmod(mode);
      await fh.chown(existing.uid, existing.gid).catch(() => {}); // only root may give files away
    }
    await rename(tmp, real);
    renamed = true;
    const at = await openedPath(fh);
    if (at !== undefined && at !== real) {
      await unlink(at).catch(() => {});
      throw new PathChangedError(`the write landed at ${at} instead of ${real}; removed`);
    }
  } catch (e) {
    if (!renamed) await unlink(tmp).catch(() => {});
    throw e;
  } finally {
    await fh.close();
  }
}
