/**
 * fs/read_text_file and fs/write_text_file, answered by Talaria for the agent. Plain async
 * handlers (ACP params in, ACP result out, RequestError out on failure) that the connection
 * registers with the SDK. Order, for both: the path is confined to the session's roots
 * (resolveInsideRoots → its real path), then `authorize` decides (the permission policy and
 * broker, wired by the session layer) — before anything is read, stat'ed, created or written —
 * then the I/O happens on that real path without following a link in the last component, with
 * the opened file's location verified (os/safe-fs.ts).
 */
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from '@agentclientprotocol/sdk';
import { lstat, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { AuthorizeEffect } from './effect.js';
import { RPC } from './errors.js';
import { RequestError } from './wire-error.js';
import { errCode } from '../os/real-path.js';
import { resolveInsideRoots } from './roots.js';
import { makeParents, openForRead, PathChangedError, writeAtomic } from '../os/safe-fs.js';
import { silentLogger, type Logger } from './types.js';

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** What a session records for a diff after a successful write. */
export interface FileWriteEvent {
  sessionId: string;
  /** The real absolute path written. */
  path: string;
  /** Previous content; null when the file did not exist, or was too large to keep (see `existed`). */
  oldText: string | null;
  newText: string;
  existed: boolean;
}

export interface FsHandlersOptions {
  /** The session's roots (cwd first, then additional directories); undefined = unknown session. */
  rootsFor: (sessionId: string) => readonly string[] | undefined;
  /** Cap on the bytes one read returns (default 10 MiB); a larger answer fails with a clear error. */
  maxReadBytes?: number;
  logger?: Logger;
  /** Called after a successful write; errors it throws are logged, never sent to the agent. */
  onWrite?: (event: FileWriteEvent) => void | Promise<void>;
  /**
   * Decides every read and write once its path is confined (rejects with a RequestError to refuse).
   * Without it the handlers only confine: the session layer always passes one.
   */
  authorize?: AuthorizeEffect;
}

export interface FsHandlers {
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse>;
}

export function createFsHandlers(options: FsHandlersOptions): FsHandlers {
  const maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const log = options.logger ?? silentLogger;

  function rootsOf(sessionId: unknown): readonly string[] {
    if (typeof sessionId !== 'string') throw invalid('sessionId must be a string', { sessionId });
    const roots = options.rootsFor(sessionId);
    if (!roots) throw new RequestError(RPC.RESOURCE_NOT_FOUND, `Unknown session: ${sessionId}`, { sessionId });
    return roots;
  }

  return {
    async readTextFile(params) {
      const roots = rootsOf(params?.sessionId);
      const requested = params.path;
      const startLine = lineParam(params.line, 'line');
      const limit = lineParam(params.limit, 'limit');
      const real = await resolveInsideRoots(roots, requested).catch((e: unknown) => {
        log.warn('fs.read.rejected', { sessionId: params.sessionId, path: requested, error: String(e) });
        throw e;
      });
      await options.authorize?.({ kind: 'fs.read', sessionId: params.sessionId, path: requested, realPath: real });
      const fh = await openForRead(real).catch((e: unknown) => {
        throw ioError(e, requested, 'read');
      });
      try {
        const st = await fh.stat();
        if (st.isDirectory())
          throw invalid(`Is a directory: ${requested}`, { path: requested, reason: 'is_directory' });
        // FIFOs and devices could block or never end.
        if (!st.isFile())
          throw invalid(`Not a regular file: ${requested}`, { path: requested, reason: 'not_regular_file' });
        const content = await readLines(fh, requested, Math.max(startLine ?? 1, 1), limit, maxReadBytes);
        log.debug('fs.read', { sessionId: params.sessionId, path: real, bytes: content.length });
        return { content };
      } finally {
        await fh.close();
      }
    },

    async writeTextFile(params) {
      const roots = rootsOf(params?.sessionId);
      const requested = params.path;
      if (typeof params.content !== 'string') throw invalid('content must be a string', { path: requested });
      const real = await resolveInsideRoots(roots, requested, { forWrite: true }).catch((e: unknown) => {
        log.warn('fs.write.rejected', { sessionId: params.sessionId, path: requested, error: String(e) });
        throw e;
      });
      // Decided before anything is created, so a refused write leaves no trace (not even a directory).
      await options.authorize?.({ kind: 'fs.write', sessionId: params.sessionId, path: requested, realPath: real });

      let existing: Stats | undefined;
      try {
        existing = await lstat(real);
      } catch (e) {
        const code = errCode(e);
        if (code !== 'ENOENT') throw ioError(e, requested, 'write');
      }
      // The checked path is a real path: a link there now was put there since.
      if (existing?.isSymbolicLink()) throw ioError(new PathChangedError(real), requested, 'write');
      if (existing?.isDirectory())
        throw invalid(`Is a directory: ${requested}`, { path: requested, reason: 'is_directory' });
      if (existing && !existing.isFile()) {
        throw invalid(`Not a regular file: ${requested}`, { path: requested, reason: 'not_regular_file' });
      }

      let oldText: string | null = null;
      if (existing && options.onWrite && existing.size <= maxReadBytes) oldText = await readWhole(real);

      try {
        await makeParents(path.dirname(real));
        await writeAtomic(real, params.content, existing);
      } catch (e) {
        throw ioError(e, requested, 'write');
      }
      log.debug('fs.write', { sessionId: params.sessionId, path: real, bytes: params.content.length });

      if (options.onWrite) {
        try {
          await options.onWrite({
            sessionId: params.sessionId,
            path: real,
            oldText,
            newText: params.content,
            existed: existing !== undefined,
          });
        } catch (e) {
          log.error('fs.write.on_write_failed', { path: real, error: String(e) });
        }
      }
      return {};
    },
  };
}

/** The whole file as text, for the diff of a write; null when it cannot be read. */
async function readWhole(real: string): Promise<string | null> {
  try {
    const fh = await openForRead(real);
    try {
      return await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

/**
 * Reads from 1-based `startLine`, at most `limit` lines, keeping line terminators as they are.
 * Streams so a slice of a huge file can be read; only the returned bytes count against `maxBytes`.
 */
async function readLines(
  fh: FileHandle,
  requested: string,
  startLine: number,
  limit: number | undefined,
  maxBytes: number,
): Promise<string> {
  if (limit === 0) return '';
  const endLine = limit === undefined ? Infinity : startLine + limit; // first line NOT returned
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let lineNo = 1;
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    while (lineNo < endLine) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      let pos = 0;
      while (pos < chunk.length && lineNo < endLine) {
        const nl = chunk.indexOf(0x0a, pos);
        const end = nl === -1 ? chunk.length : nl + 1;
        if (lineNo >= startLine) {
          keptBytes += end - pos;
          if (keptBytes > maxBytes) {
            throw invalid(
              `File too large to read at once: ${requested} (more than ${maxBytes} bytes); read a range with line/limit`,
              {
                path: requested,
                reason: 'too_large',
                maxBytes,
              },
            );
          }
          kept.push(Buffer.from(chunk.subarray(pos, end))); // copy: buf is reused
        }
        if (nl !== -1) lineNo++;
        pos = end;
      }
    }
  } catch (e) {
    if (e instanceof RequestError) throw e;
    throw ioError(e, requested, 'read');
  }
  // Binary content is decoded anyway (invalid bytes become U+FFFD); the agent decides.
  return Buffer.concat(kept, keptBytes).toString('utf8');
}

function lineParam(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw invalid(`${name} must be a non-negative integer`, { [name]: v });
  }
  return v;
}

function invalid(message: string, data: Record<string, unknown>): RequestError {
  return new RequestError(RPC.INVALID_PARAMS, message, data);
}

function ioError(e: unknown, requested: string, op: 'read' | 'write'): RequestError {
  if (e instanceof RequestError) return e;
  const code = errCode(e);
  // The checked path was swapped for a link (or a parent for one) between the check and the use.
  if (code === 'PATH_CHANGED' || code === 'ELOOP') {
    return invalid(`Refusing to ${op} ${requested}: the path changed while it was being checked`, {
      path: requested,
      reason: 'path_changed',
    });
  }
  if (op === 'write' && code === 'ENOTDIR') {
    return invalid(`A parent of ${requested} is not a directory`, { path: requested, reason: 'not_a_directory' });
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new RequestError(RPC.RESOURCE_NOT_FOUND, `File not found: ${requested}`, { path: requested });
  }
  if (code === 'EISDIR') return invalid(`Is a directory: ${requested}`, { path: requested, reason: 'is_directory' });
  return new RequestError(RPC.INTERNAL_ERROR, `Cannot ${op} ${requested}: ${code ?? String(e)}`, {
    path: requested,
    ...(code ? { code } : {}),
  });
}
