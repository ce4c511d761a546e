/** What the main thread and the PostgreSQL worker say to each other (sync-client.ts, pg-worker.ts). */
import type { MessagePort } from 'node:worker_threads';

export interface PgInit {
  /** The connection string (`postgres://…`); the worker alone holds it. */
  url: string;
  /** Int32 cells: slot 0 the last answered id (the main thread waits on it), slot 1 set once the worker has loaded. */
  ctl: SharedArrayBuffer;
  /** Where answers go: the main thread reads it synchronously (receiveMessageOnPort). */
  answers: MessagePort;
  /** How long the worker waits for a connection before it answers `unavailable`. */
  connectTimeoutMs: number;
  /** Statements run on each new connection (session settings such as read-only). */
  setup?: string[];
}

export interface PgStatement {
  text: string;
  values: readonly unknown[];
  /** A prepared statement's name: the connection keeps it parsed (same name, same text). */
  name?: string;
}

export interface PgRequest extends PgStatement {
  id: number;
  /** Statements to run first, in order, in the same message (writes whose results can wait); the first error stops them. */
  before?: PgStatement[];
}

export type PgAnswer =
  /** `counts`: the row counts of `before`'s statements. */
  | { id: number; rows: Record<string, unknown>[]; rowCount: number; counts?: number[] }
  /** `code`: PostgreSQL's SQLSTATE, or `unavailable` when there is no connection. */
  | { id: number; error: { code: string; message: string } };
