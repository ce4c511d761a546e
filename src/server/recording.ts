/**
 * Recording trouble on the server's stream: the harness says when a session's recording waits
 * for the store (held and retried), caught up, or lost something for good; the server turns each
 * into a session event (`recording.delayed`, `recording.caught_up`, `recording.failed`) and keeps
 * each session's current state for its snapshot, so a browser never shows unsaved work as saved.
 *
 * The harness takes its callbacks when it is created, before any server exists (`talaria serve`
 * makes the harness first): a RecordingRelay is handed to both and joins them.
 */
import type { HarnessOptions, RecordingDelay, RecordingError } from '../harness/index.js';
import type { RecordingState, StreamEventName } from './contract/index.js';

export interface RecordingSink {
  delay(e: RecordingDelay): void;
  error(e: RecordingError): void;
}

/** The harness's recording callbacks, for the server that will listen (ServerOptions.recording). */
export class RecordingRelay {
  private sink: RecordingSink | undefined;
  /** Spread into the HarnessOptions of the harness the server is given. */
  readonly harnessOptions: Required<Pick<HarnessOptions, 'onRecordingDelay' | 'onRecordingError'>> = {
    onRecordingDelay: (e) => this.sink?.delay(e),
    onRecordingError: (e) => this.sink?.error(e),
  };

  /** One listener (the server's hub); returns the disconnect. */
  connect(sink: RecordingSink): () => void {
    this.sink = sink;
    return () => {
      if (this.sink === sink) this.sink = undefined;
    };
  }
}

type Emit = (sessionId: string, type: StreamEventName, body: Record<string, unknown>) => void;

/** Each session's recording state (for snapshots), kept from the events it emits. */
export class RecordingStates implements RecordingSink {
  private readonly states = new Map<string, RecordingState>();

  constructor(private readonly emit: Emit) {}

  /** The session's trouble now, if any: a failure stays for as long as this server runs. */
  of(sessionId: string): { recording?: RecordingState } {
    const s = this.states.get(sessionId);
    return s ? { recording: { ...s } } : {};
  }

  delay(e: RecordingDelay): void {
    const id = e.sessionId;
    const cur = this.states.get(id);
    if (e.type === 'recording.delayed') {
      const delayed = { frames: e.frames, bytes: e.bytes, since: e.since, error: e.error.message };
      this.states.set(id, { ...cur, delayed });
      this.emit(id, 'recording.delayed', delayed);
      return;
    }
    if (cur?.failed) this.states.set(id, { failed: cur.failed });
    else this.states.delete(id);
    this.emit(id, 'recording.caught_up', { frames: e.frames, outageMs: e.outageMs });
  }

  error(e: RecordingError): void {
    const id = e.sessionId;
    const cur = this.states.get(id);
    // The message only (a stack is for the server's log, not for a browser), and the cause's: the
    // wrapper's "session … is not being stored completely" is what the banner says already.
    const cause = e.error.cause;
    const failed = { code: e.error.code, message: cause instanceof Error ? cause.message : e.error.message };
    if (!cur?.failed) this.states.set(id, { ...cur, failed });
    this.emit(id, 'recording.failed', failed);
  }
}
