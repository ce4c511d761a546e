/**
 * Whether the store can do its job, for `talaria doctor`: it can be written (a read-only file or
 * folder records nothing), and SQLite finds no damage in it (`PRAGMA quick_check`, read-only, in
 * a child process killed after `timeoutMs`: a big store does not hold the doctor up).
 */
import { fork } from 'node:child_process';
import { statSync } from 'node:fs';
import { asStoreError, StoreError, storeErrorFrom } from './errors.js';
import type { CheckChildResult } from './check-child.js';
import type { Store } from './index.js';
import { isPgUrl } from './pg/url.js';
import { nodeScript } from '../os/node-script.js';

export type StoreCheck =
  /** Writable, and the integrity check found nothing (`checked: false`: it did not finish in time). */
  { ok: true; checked: boolean; note?: string } | { ok: false; problem: StoreError };

export async function checkStore(
  store: Pick<Store, 'path' | 'readOnly' | 'readOnlyReason'>,
  o: { timeoutMs: number },
): Promise<StoreCheck> {
  const path = store.path;
  if (store.readOnly) {
    const why = Object.assign(new Error(store.readOnlyReason ?? 'opened read-only'), { code: 'SQLITE_READONLY' });
    return { ok: false, problem: storeErrorFrom(why, path, 'write') };
  }
  if (path === ':memory:') return { ok: true, checked: false, note: 'an in-memory store' };
  // quick_check reads a SQLite file; a server keeps its own data sound (checksums, its log).
  if (isPgUrl(path)) return { ok: true, checked: false, note: 'a PostgreSQL store (the server checks its own data)' };
  const r = await runChild(path, o.timeoutMs);
  if (r === 'timeout') {
    const mb = Math.round(sizeOf(path) / 1e6);
    return {
      ok: true,
      checked: false,
      note: `the integrity check did not finish within ${Math.round(o.timeoutMs / 1000)} s (${mb} MB); not checked`,
    };
  }
  if ('ok' in r && r.ok) return { ok: true, checked: true };
  if ('problems' in r)
    return {
      ok: false,
      problem: storeErrorFrom(
        Object.assign(new Error(`integrity check: ${r.problems[0]}`), { code: 'SQLITE_CORRUPT' }),
        path,
        'check',
      ),
    };
  // A fault of the file (corrupt, unreadable…) is the store's problem; the check failing otherwise is not.
  const problem = asStoreError(Object.assign(new Error(r.error.message), { code: r.error.code }), path, 'check');
  return problem instanceof StoreError
    ? { ok: false, problem }
    : { ok: true, checked: false, note: `not checked: ${r.error.message}` };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function runChild(path: string, timeoutMs: number): Promise<CheckChildResult | 'timeout'> {
  return new Promise((resolve) => {
    const { file, execArgv } = nodeScript(import.meta.url, 'check-child');
    const child = fork(file, [path], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let result: CheckChildResult | undefined;
    let err = '';
    child.on('message', (m) => (result = m as CheckChildResult));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('timeout');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ error: { message: `the integrity check could not start: ${e.message}` } });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(
        result ?? {
          error: { message: `the integrity check failed (exit ${code}): ${err.trim().split('\n').pop() ?? ''}` },
        },
      );
    });
  });
}
