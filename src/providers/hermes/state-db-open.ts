/**
 * Opening Hermes' `state.db` for reading, the one way every reader does it. Hermes owns the file:
 * it is opened read-only (`readonly`, `fileMustExist`: never created, never written) with a short
 * busy timeout, so Hermes' WAL writers are never held up, and the caller closes it before it
 * returns. What the file says about its own shape (schema_version, the tables' columns) is read
 * first; a reader that depends on more than columns asks for the exact schema version it was
 * checked against, and anything else is `unknown-shape` — never a guess.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The schema the readers were checked against (hermes_state.py:143 `SCHEMA_VERSION = 21`, Hermes 0.18.2). */
export const HERMES_STATE_SCHEMA = 21;

export type StateDbProblem =
  | { kind: 'missing'; file: string; message: string }
  | { kind: 'unknown-shape'; file: string; message: string }
  | { kind: 'busy'; file: string; message: string }
  | { kind: 'error'; file: string; message: string };

export interface OpenStateDb {
  kind: 'ok';
  db: Database.Database;
  file: string;
  /** `schema_version.version` (Hermes keeps it there; PRAGMA user_version stays 0), null when absent. */
  version: number | null;
  /** The columns of a table (empty when it does not exist). */
  columns(table: string): Set<string>;
}

export function hermesStateDbPath(home: string): string {
  return join(home, 'state.db');
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** "schema_version 21" / "no schema_version", for messages. */
export const versionText = (v: number | null): string => (v === null ? 'no schema_version' : `schema_version ${v}`);

/**
 * Opens `<home>/state.db` read-only and reads its version. `needs`: tables and the columns each
 * must have; `exactVersion`: the one schema_version accepted (a reader of message rows, whose
 * meaning can change between versions, asks for it). Never throws; on `ok` the caller closes `db`.
 */
export function openHermesStateDb(
  home: string,
  o: { timeoutMs?: number; needs?: Record<string, readonly string[]>; exactVersion?: number; what?: string } = {},
): OpenStateDb | StateDbProblem {
  const file = hermesStateDbPath(home);
  if (!existsSync(file)) return { kind: 'missing', file, message: `no Hermes state.db at ${file}` };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: o.timeoutMs ?? 250 });
    const d = db;
    const columns = (table: string) =>
      new Set(
        (d.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map((c) => c.name),
      );
    const hasVersionTable =
      d.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get() !== undefined;
    const version = hasVersionTable
      ? (num(
          (d.prepare('SELECT version FROM schema_version LIMIT 1').get() as { version?: unknown } | undefined)?.version,
        ) ?? null)
      : null;
    const what = o.what ?? 'nothing';
    const unknown = (why: string): StateDbProblem => ({
      kind: 'unknown-shape',
      file,
      message: `unknown shape of Hermes state.db (${versionText(version)}): ${why}; Talaria reads schema ${HERMES_STATE_SCHEMA} (Hermes 0.18.2), so ${what} is read from it`,
    });
    if (o.exactVersion !== undefined && version !== o.exactVersion) {
      d.close();
      return unknown(`its version is not ${o.exactVersion}`);
    }
    for (const [table, need] of Object.entries(o.needs ?? {})) {
      const cols = columns(table);
      const why =
        cols.size === 0
          ? `it has no ${table} table`
          : need.some((c) => !cols.has(c))
            ? `its ${table} table has no ${need.filter((c) => !cols.has(c)).join(', ')}`
            : undefined;
      if (why) {
        d.close();
        return unknown(why);
      }
    }
    return { kind: 'ok', db: d, file, version, columns };
  } catch (e) {
    db?.close();
    return stateDbFailure(file, e, 'not read this time');
  }
}

/** An SQLite failure while reading: busy or locked (Hermes is writing), or any other error. */
export function stateDbFailure(file: string, e: unknown, busyTail: string): StateDbProblem {
  const c = (e as { code?: unknown } | null)?.code;
  const code = typeof c === 'string' ? c : '';
  const msg = e instanceof Error ? e.message : String(e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { kind: 'busy', file, message: `Hermes state.db is busy (${msg}); ${busyTail}` };
  return { kind: 'error', file, message: `cannot read Hermes state.db: ${msg}` };
}
