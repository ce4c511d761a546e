/**
 * The store's integrity check, in a process of its own (check.ts starts it): `PRAGMA quick_check`
 * reads every page, which on a big store takes longer than a doctor may wait, and SQLite cannot
 * be interrupted from JavaScript — a process can be killed. Read-only: it never writes the file.
 * Usage: forked with <db path>; sends one CheckChildResult over IPC, then exits.
 */
import { openReadOnly } from './db-file.js';

export type CheckChildResult =
  { ok: true } | { ok: false; problems: string[] } | { error: { code?: string; message: string } };

/** At most this many problems are listed (the first one says enough to act). */
const MAX_PROBLEMS = 5;

function check(path: string): CheckChildResult {
  try {
    const db = openReadOnly(path);
    try {
      const rows = db.pragma(`quick_check(${MAX_PROBLEMS})`, { simple: false }) as { quick_check: string }[];
      // One row may hold several lines under a "*** in database main ***" heading.
      const problems = rows
        .flatMap((r) => r.quick_check.split('\n'))
        .filter((p) => p !== 'ok' && p.trim() !== '' && !p.startsWith('***'))
        .slice(0, MAX_PROBLEMS);
      return problems.length === 0 ? { ok: true } : { ok: false, problems };
    } finally {
      db.close();
    }
  } catch (err) {
    // openReadOnly names the store's own problems (a StoreError): SQLite's error is its cause.
    const c = ((err as { cause?: unknown }).cause ?? err) as { code?: unknown; message?: string };
    return { error: { ...(typeof c.code === 'string' ? { code: c.code } : {}), message: c.message ?? String(err) } };
  }
}

// Exits once the result is sent: nothing else keeps this process.
process.send?.(check(process.argv[2] ?? ''), undefined, undefined, () => process.disconnect());
