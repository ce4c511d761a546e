/**
 * A `/ws` subscription to a session another live host of the fleet owns (docs/fleet.md §3): the
 * owner's snapshot, then its events after that seq, streamed from the owner (its caps
 * `subscribe(sink, afterSeq)`, over the pair connection) as if the session were live here. The
 * owner's event log is the one log, with its seqs: this host logs nothing of it. A `session.live`
 * reset there is followed by a fresh snapshot, as locally.
 */
import type { ServerMessage, SessionSnapshot, StreamEvent } from './contract/index.js';
import type { SteerAnswer } from './prompt-queue.js';
import { asciiJson, eventsFrame } from './batch.js';
import type { ContentBlock } from '../thread/types.js';

/** The host that owns a live session (its writer lease names it; it is online). */
export interface FleetOwner {
  id: string;
  name: string;
}

/** A session's operations carried out by its owner (over its `/captp`, with this host's pair reference). */
export interface FleetForward {
  /** A prompt's blocks (text and images) to the owner's session. */
  prompt(owner: FleetOwner, sessionId: string, blocks: readonly ContentBlock[]): Promise<{ id: string }>;
  cancel(owner: FleetOwner, sessionId: string): Promise<void>;
  /** The agent's model or mode there, as the owner's session sets it (its catalog event comes back in the follow). */
  setChoice(owner: FleetOwner, sessionId: string, kind: 'model' | 'mode', id: string): Promise<void>;
  /** The owner's broker decides: `{ok: false, reason: 'already_answered'}` when another answer came first. */
  answerPermission(
    owner: FleetOwner,
    sessionId: string,
    requestKey: string,
    optionId: string,
  ): Promise<{ ok: boolean; reason?: string }>;
  /** Steers it there (the owner's server's steer; its answer). */
  steer(owner: FleetOwner, sessionId: string, body: { text?: string; queued?: string }): Promise<SteerAnswer>;
  /** The session as the owner's clients see it. */
  snapshot(owner: FleetOwner, sessionId: string): Promise<SessionSnapshot>;
  /**
   * Its events after `since` (the owner's event seq), then live, until the returned stop; `ended`
   * runs if the owner's connection goes first (it went away, or this host was revoked).
   */
  follow(
    owner: FleetOwner,
    sessionId: string,
    since: number,
    sink: (events: StreamEvent[]) => void,
    ended: (err: Error) => void,
  ): Promise<() => void>;
}

export interface RemoteSession {
  owner: FleetOwner;
  forward: FleetForward;
  id: string;
}

export interface RemoteSink {
  send(m: ServerMessage): void;
  /** One `events` message already serialized (batch.ts eventsFrame). */
  frame(bytes: Buffer): void;
  /** The follow failed (the owner went away, refused): told to the client as an error. */
  failed(err: unknown): void;
}

/** Starts following; returns the stop (safe to call before the follow is up). */
export function followRemote(r: RemoteSession, since: number | undefined, out: RemoteSink): () => void {
  let stopped = false;
  let stop: (() => void) | undefined;
  const snapshot = async (): Promise<number> => {
    const snap = await r.forward.snapshot(r.owner, r.id);
    if (!stopped) out.send({ type: 'snapshot', sessionId: r.id, snapshot: snap });
    return snap.seq;
  };
  const onEvents = (events: StreamEvent[]): void => {
    if (stopped || events.length === 0) return;
    out.frame(eventsFrame(r.id, events.map(asciiJson)));
    if (events.some((e) => e.type === 'session.live')) snapshot().catch((err: unknown) => out.failed(err));
  };
  void (async () => {
    const from = since ?? (await snapshot());
    if (stopped) return;
    const s = await r.forward.follow(r.owner, r.id, from, onEvents, (err) => {
      if (!stopped) out.failed(err);
    });
    if (stopped) return s();
    stop = s;
    out.send({ type: 'synced', sessionId: r.id, seq: from });
  })().catch((err: unknown) => {
    if (!stopped) out.failed(err);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}
