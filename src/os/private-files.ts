/**
 * Files that hold conversations or credentials — the store, config.json, session exports,
 * `--wire-log` files — are created 0600 in folders created 0700, and an existing one that is
 * looser is tightened when we write it (a umask or an older Talaria may have left it 0644).
 */
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and missing parents) 0700; an existing one open to group or others is made 0700. Returns whether it was tightened. */
export function ensurePrivateDir(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  return tighten(dir, PRIVATE_DIR_MODE);
}

/** An existing file open to group or others made 0600 (false: not there, already private, or not ours to change). */
export function tightenFile(path: string): boolean {
  return tighten(path, PRIVATE_FILE_MODE);
}

function tighten(path: string, mode: number): boolean {
  try {
    const st = statSync(path);
    if ((st.mode & 0o077) === 0) return false;
    // Only take away (group and others' bits): a folder its owner made read-only stays read-only.
    chmodSync(path, st.mode & mode & 0o777);
    return true;
  } catch {
    // Not there, or owned by someone else: opening it will say what is wrong.
    return false;
  }
}

/**
 * Opens `path` for writing (truncated, or appended with `flags: 'a'`), created 0600; an existing
 * regular file is tightened to 0600 first. Devices and pipes (`/dev/stdout`) are left alone.
 */
export function openPrivateFile(path: string, flags: 'w' | 'a' = 'w'): number {
  const fd = openSync(path, flags, PRIVATE_FILE_MODE);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/**
 * Writes `data` to `path` 0600 (see openPrivateFile). `atomic`: through a temp file renamed over
 * it, so a crash never leaves half a file (config.json).
 */
export function writePrivateFile(path: string, data: string | Uint8Array, o: { atomic?: boolean } = {}): void {
  if (!o.atomic) {
    const fd = openPrivateFile(path);
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    writeAll(fd, data);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
