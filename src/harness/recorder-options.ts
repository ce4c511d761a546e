/** The recorder's options, face and defaults (the recorder itself is recorder.ts). */
import { redactFrame } from '../os/redact.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { Frame, Logger } from '../protocol/types.js';
import type { SessionEvent } from '../session/events.js';
import type { HoldLimits, RecordingDelayEvent } from './recorder-hold.js';

export interface RecorderOptions {
  /** The Talaria session id (a row in `sessions`) everything is recorded under. */
  sessionKey: string;
  /** When set, events of other agent sessions are ignored (for a client-wide subscription). */
  agentSessionId?: string;
  /**
   * Commit at once when this many frames are pending (default 1024): a bound on memory and on
   * what a SIGKILL mid-tick can lose. A flood's tick carries ~850 frames; at 256 a tick took
   * three or four commits, each paying the commit's fixed cost (about 40 WAL pages rewritten).
   */
  maxBatch?: number;
  /**
   * A stream's commits are at least this far apart (ms, default 10; 0: one per tick): what a
   * SIGKILL mid-turn can lose, against the commit's fixed cost paid per frame by a paced stream.
   */
  commitGapMs?: number;
  /** Start the stored thread afresh (a new live Thread restarts entry indexes at 0). Default false. */
  resetThread?: boolean;
  /**
   * The line stored for a frame (default storedLineOf: the bytes as received, secrets masked).
   * The one place a frame's stored form is made.
   */
  storedLine?: (frame: Frame) => string;
  logger?: Logger;
  /**
   * Checkpoint the WAL into the database once nothing was committed for this long (ms, default
   * 500): checkpoints (a copy and two fsyncs) then fall between turns, not inside a stream.
   */
  idleCheckpointMs?: number;
  /**
   * Commit on the store's writer thread (store/writer-thread.ts), off the event loop that reads
   * the agent (default off, see writerThreadDefault; an in-memory store always commits inline). Until
   * the thread is ready, and if it fails, batches commit on the main connection as before.
   */
  thread?: boolean;
  /** After each commit (the SIGKILL test and progress displays use it). */
  onFlush?: (info: FlushInfo) => void;
  /**
   * A batch could not be written (it is dropped, counted and logged as well): the store refused
   * it for good, or it waited out an outage past the hold's bounds (code `recording_gave_up`).
   */
  onError?: (err: Error) => void;
  /**
   * Bounds on what is held while the store is unavailable for now (`store_busy`), and the retry
   * backoff (recorder-hold.ts, DEFAULT_HOLD: 200,000 frames, 64 MiB, 5 minutes; 50 ms doubling
   * to 2 s). Past a bound the held frames are dropped and reported through onError.
   */
  hold?: Partial<HoldLimits>;
  /**
   * The store is out and frames wait (`recording.delayed`: on the first failure, then after each
   * failed retry, with the count), or it took them all (`recording.caught_up`, once).
   */
  onDelay?: (e: RecordingDelayEvent) => void;
}

export interface FlushInfo {
  /** Frames committed by this flush. */
  frames: number;
  /** Seq of the last committed frame. */
  lastSeq: number;
  /** Entry rows written by this flush (after coalescing). */
  entries: number;
}

export interface Recorder {
  /** The frame tap: pass to session.subscribeFrames (or ClientOptions.onFrame for a whole connection). */
  onFrame(frame: Frame): void;
  /** The event tap: pass to session.subscribe / client.subscribe. */
  onEvent(ev: SessionEvent): void;
  /** Richer audit rows (subject, option kind): pass as ClientOptions.onPermissionDecision. Once used, it replaces the event-based audit. */
  onPermissionDecision(ev: PermissionDecisionEvent): void;
  /**
   * Commits everything pending now. While the store is out it tries what is held once more
   * (waiting at most the store's own busy or query timeout) and returns with the rest still held.
   */
  flush(): void;
  /** Flushes and stops recording; what is still held goes on being retried until it commits or the hold gives up. */
  close(): void;
  /** Seq of the last committed frame. */
  readonly lastSeq: number;
  /** Frames queued but not committed yet (held ones included). */
  readonly pendingFrames: number;
  /** Frames waiting for the store to come back (see RecorderOptions.hold). */
  readonly heldFrames: number;
  /** Since when (epoch ms) the store has not taken a commit, while frames are held. */
  readonly delayedSince: number | undefined;
  /** Frames that never reached the disk (failed batches, or sent after the store closed). */
  readonly lostFrames: number;
  /** The first failure, kept (later ones are counted in lostFrames and logged). */
  readonly error: Error | undefined;
  /** Batches go to the writer thread now (it is ready and has not failed). */
  readonly threaded: boolean;
}

/**
 * Default stored form of a frame: exactly the line that crossed the pipe, unless it carries a
 * secret (mcpServers env/headers, terminal/create env, authenticate…): then masked (os/redact.ts).
 */
export const storedLineOf = (frame: Frame): string => redactFrame(frame, frame.raw);

/** See RecorderOptions.maxBatch. */
export const DEFAULT_MAX_BATCH = 1024;
/** See RecorderOptions.commitGapMs. */
export const DEFAULT_COMMIT_GAP_MS = 10;
/**
 * See RecorderOptions.thread: off unless `TALARIA_WRITER_THREAD=1` (read as each recorder starts).
 * Off because it did not pay where it was measured: on a loaded 2-core machine, talaria + store /
 * core was 0.48× with and without it (8 paired rounds each); the thread's CPU comes out of the
 * same cores, and handing batches over costs the event loop about a third of committing them.
 */
export const writerThreadDefault = (env: NodeJS.ProcessEnv = process.env): boolean => env.TALARIA_WRITER_THREAD === '1';
/** Batches handed to the writer thread and not answered before the recorder waits for the oldest (bounds memory). */
export const MAX_IN_FLIGHT = 8;
