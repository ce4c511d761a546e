/**
 * The versioned NDJSON stream of `talaria run --ndjson` and `talaria replay --ndjson`
 * (docs/ndjson.md). Every line: {"v":1,"type","sessionId","seq","at",…}. `type` is an event
 * name from src/session/events.ts, or `run.started` (first line) / `run.ended` (last line).
 * `seq` numbers the lines of this stream from 1; the body is the event's own fields.
 */
import type { SessionEvent } from '../session/events.js';

export const NDJSON_VERSION = 1;

export interface RunStarted {
  /** What ran: the agent's name, or the replayed file. */
  agent?: string;
  source?: string;
  /** The session's working directory. */
  cwd?: string;
  /** The agent's own session id (the envelope's sessionId is Talaria's). */
  agentSessionId?: string;
  /** True when --session reopened a session the agent still had (loaded or resumed). */
  loaded?: boolean;
  /** How the session was opened: new, loaded, resumed, restored (from Talaria's store), forked. */
  origin?: string;
  talaria?: string;
}

export interface RunEnded {
  stopReason: string;
  exitCode: number;
  usage?: unknown;
  error?: { code: string; message: string; data?: unknown };
  durationMs?: number;
}

export class NdjsonWriter {
  private seq = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
    /** The id lines carry for an event's session (run: Talaria's id; replay: the agent's, all a wire log knows). */
    private readonly idOf: (agentSessionId: string) => string = (id) => id,
  ) {}

  private line(type: string, sessionId: string | null, at: number, body: object): void {
    // Serialized now: entries in events are live objects that later updates mutate.
    this.write(JSON.stringify({ v: NDJSON_VERSION, type, sessionId, seq: ++this.seq, at, ...body }) + '\n');
  }

  event(e: SessionEvent): void {
    const { type, sessionId, seq: _seq, at, ...body } = e;
    this.line(type, this.idOf(sessionId), at, body);
  }

  started(sessionId: string | null, body: RunStarted, at = this.now()): void {
    this.line('run.started', sessionId, at, body);
  }

  ended(sessionId: string | null, body: RunEnded, at = this.now()): void {
    this.line('run.ended', sessionId, at, body);
  }
}
