/**
 * The store's event stream of a session, handed in by `talaria serve` (its event log): with it the
 * seq a reader gets and resumes from is the store's `session_events` seq — the number `/ws` clients
 * see for the same event — and a resume reads what is missing from the log, or gets a snapshot when
 * the log cannot answer exactly (before the last reset, across a restart's gap, pruned).
 * Structural on purpose: the caps face does not import the server.
 */
export interface StoreEvent {
  sessionId: string;
  seq: number;
  type: string;
  [k: string]: unknown;
}

export interface EventCursor {
  /** Each event of the session as it is appended, synchronously. */
  subscribe(sessionId: string, fn: (ev: StoreEvent) => void): () => void;
  /** Events after `since`, or undefined: the caller must take a snapshot. */
  after(sessionId: string, since: number): readonly StoreEvent[] | undefined;
  /** Seq of the session's last event (0: none). */
  head(sessionId: string): number;
}
