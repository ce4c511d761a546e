/**
 * The live side of the server: which sessions are attached to an agent, their event stream
 * (every bus event gets a seq in the event log and goes to every subscriber at once), the
 * session's prompt queue passed on (its `queue.updated`), pending permissions (first answer wins)
 * and "needs attention" events.
 */
import { liveRegistry, type Harness, type HarnessSession, type SessionOrigin } from '../harness/index.js';
import type { SessionEvent } from '../session/events.js';
import type { StoredSession } from '../store/index.js';
import type {
  PendingPermission,
  SessionSnapshot,
  SessionSummaryInfo,
  StreamEvent,
  StreamEventName,
} from './contract/index.js';
import type { EventLog } from './event-log.js';
import { EventBatcher, type BatchSink } from './batch.js';
import { SessionOrigins } from './session-origin.js';
import { appended, threadJson } from './hub-json.js';
import { choiceChange, choiceOf, sessionSummary, type Choice } from './hub-summary.js';
import { RecordingStates, type RecordingRelay } from './recording.js';
import type { RemoteSession } from './hub-remote.js';

export { appended };
import {
  agentStateChanged,
  clearFailures,
  shownFailure,
  StoredFailures,
  storedFailure,
  turnEnded,
  type Failure,
  type FailureState,
} from './session-failure.js';

export interface LiveSession extends FailureState {
  hs: HarnessSession;
  origin: SessionOrigin;
  /**
   * Turns waiting in the session's queue: the stream shows the queue as `queue.updated`, so their
   * `turn.queued`, and the `turn.ended` of one that leaves the queue without running, stay off it.
   */
  waiting: Set<string>;
  pending: Map<string, PendingPermission>;
  /** requestKey → who answered (for a late answer's `conflict`). */
  resolved: Map<string, string>;
  /** The last entry sent per index (entries are immutable: a new object per update). */
  sent: Map<number, unknown>;
  /** The model and mode last told to clients (`choice.updated`), from the session's catalog. */
  choice: Choice;
  off: () => void;
}

/** An in-process subscriber: each event as it is appended, synchronously. */
export type EventSink = (ev: StreamEvent) => void;

/** The events after which a live session's fleet status may differ (server/fleet.ts). */
const LIVE_CHANGES = new Set(['permission.asked', 'permission.decided', 'turn.started', 'turn.ended', 'session.state']);

export class Hub {
  readonly live = new Map<string, LiveSession>();
  private readonly sinks = new Map<string, Set<EventSink>>();
  private readonly batches = new EventBatcher();
  private readonly listListeners = new Set<(s: SessionSummaryInfo) => void>();
  private readonly liveListeners = new Set<(ls: LiveSession) => void>();
  private readonly storedFailures: StoredFailures;
  private readonly origins: SessionOrigins;
  /** Stops following the harness's live registry (closeAll). */
  private readonly offShared: () => void;
  /** Each session's recording trouble (recording.ts), fed by the harness through the relay. */
  readonly recording = new RecordingStates((id, type, body) => {
    this.emit(id, type, body);
    if (type === 'recording.caught_up') this.log.storeBack();
  });
  private readonly offRecording: () => void;
  /** A fleet: the owner of a session another live host owns, to follow it there (hub-remote.ts; server.ts sets it). */
  remoteOf: ((sessionId: string) => RemoteSession | undefined) | undefined;

  constructor(
    readonly harness: Harness,
    readonly log: EventLog,
    relay?: RecordingRelay,
  ) {
    this.offRecording = relay?.connect(this.recording) ?? (() => {});
    this.storedFailures = new StoredFailures(harness.store);
    this.origins = new SessionOrigins(harness.store);
    // A session another face (caps) opened is live here too: /ws clients see it, HTTP prompts it,
    // and nobody opens a second agent session for it.
    const shared = liveRegistry(harness);
    const follow = (hs: HarnessSession) => {
      if (this.live.get(hs.id)?.hs !== hs) this.attach(hs);
    };
    this.offShared = shared.onAdded(follow);
    for (const hs of shared.all()) follow(hs);
  }

  // ---- fan-out ----
  /** Every event of a session, synchronously as it is appended (in-process subscribers). */
  subscribe(sessionId: string, sink: EventSink): () => void {
    let set = this.sinks.get(sessionId);
    if (!set) this.sinks.set(sessionId, (set = new Set()));
    set.add(sink);
    return () => set.delete(sink);
  }

  /**
   * A session's events in batches, one per task that emitted them (batch.ts), each batch serialized once for every
   * subscriber (the `/ws` clients). Whatever was appended before this call is not in its batches:
   * the pending batch is delivered to the earlier subscribers first, so a subscriber that reads the
   * log right after subscribing gets each event exactly once.
   */
  subscribeBatches(sessionId: string, sink: BatchSink): () => void {
    return this.batches.subscribe(sessionId, sink);
  }

  /** A live session's state, turn or pending permissions changed (a fleet reports its status). */
  onLiveChanged(fn: (ls: LiveSession) => void): () => void {
    this.liveListeners.add(fn);
    return () => this.liveListeners.delete(fn);
  }

  onSessionUpdated(fn: (s: SessionSummaryInfo) => void): () => void {
    this.listListeners.add(fn);
    return () => this.listListeners.delete(fn);
  }

  emit(sessionId: string, type: StreamEventName, body: Record<string, unknown>): StreamEvent {
    const ev = this.log.append(sessionId, type, body);
    const set = this.sinks.get(sessionId);
    if (set) for (const sink of set) sink(ev);
    this.batches.add(ev);
    // A reset rebuilt the history outside the stream: its batch goes at once, so each client's
    // fresh snapshot follows it directly (ws-conn.ts).
    if (type === 'session.live') this.batches.flush(sessionId);
    return ev;
  }

  sessionChanged(id: string): void {
    if (this.listListeners.size === 0) return;
    const row = this.harness.sessions.find(id);
    if (!row) return;
    const s = this.summary(row);
    for (const fn of this.listListeners) fn(s);
  }

  // ---- attach ----
  /** Attaches a freshly opened harness session: a `session.live` reset, then every bus event. */
  attach(hs: HarnessSession): LiveSession {
    const prev = this.live.get(hs.id);
    if (prev) prev.off();
    const ls: LiveSession = {
      hs,
      origin: hs.origin,
      waiting: new Set(hs.session.queued.map((t) => t.id)),
      pending: new Map(),
      resolved: new Map(),
      sent: new Map(),
      choice: choiceOf(hs.catalog),
      off: () => {},
    };
    // A fresh attach keeps what the previous one knew, else what the store says the last turn ended with (a restart).
    const seeded = prev ? prev.turnFailure : storedFailure(this.harness.store, hs.id);
    if (seeded) ls.turnFailure = seeded;
    for (const p of hs.session.pendingPermissions()) this.addPending(ls, p as unknown as Record<string, unknown>, 0);
    this.live.set(hs.id, ls);
    this.emit(hs.id, 'session.live', { origin: hs.origin, provider: hs.provider });
    ls.off = hs.subscribe((e) => this.onBusEvent(ls, e));
    this.sessionChanged(hs.id);
    // One live session per id for every face (the caps face follows the registry).
    liveRegistry(this.harness).adopt(hs);
    // Held for good: the server's shutdown closes them with the harness, after its grace for running turns.
    liveRegistry(this.harness).hold(hs.id, 'hub');
    return ls;
  }

  private addPending(ls: LiveSession, e: Record<string, unknown>, seq: number): void {
    const p: PendingPermission = {
      requestKey: String(e.requestKey),
      toolCallId: String(e.toolCallId),
      options: (e.options as unknown[]) ?? [],
      subject: e.subject,
      seq,
      ...(typeof e.title === 'string' ? { title: e.title } : {}),
    };
    ls.pending.set(p.requestKey, p);
  }

  private onBusEvent(ls: LiveSession, e: SessionEvent): void {
    const id = ls.hs.id;
    if (e.type === 'turn.queued') {
      ls.waiting.add(e.turnId);
      return;
    }
    if (e.type === 'turn.started') ls.waiting.delete(e.turnId);
    // A queued prompt removed, dropped or steered into the running turn: never a turn of the stream's.
    if (e.type === 'turn.ended' && ls.waiting.delete(e.turnId)) return;
    let ev: StreamEvent;
    if (e.type === 'entry.added' || e.type === 'entry.updated') {
      const grown = e.type === 'entry.updated' ? appended(ls.sent.get(e.index), e.entry, e.appended) : undefined;
      ls.sent.set(e.index, e.entry);
      ev =
        grown !== undefined
          ? this.emit(id, 'entry.appended', { index: e.index, text: grown })
          : this.emit(id, e.type, { index: e.index, entry: e.entry });
    } else {
      const { sessionId: _a, seq: _b, at: _c, type, ...body } = e;
      ev = this.emit(id, type, body);
    }
    switch (e.type) {
      case 'permission.asked':
        this.addPending(ls, e as unknown as Record<string, unknown>, ev.seq);
        this.emit(id, 'attention', { kind: 'permission', text: `Permission needed: ${e.title ?? e.toolCallId}` });
        this.sessionChanged(id);
        break;
      case 'permission.decided': {
        ls.pending.delete(e.requestKey);
        const who = e.answeredBy ?? e.decidedBy;
        ls.resolved.set(e.requestKey, who);
        this.emit(id, 'permission.resolved', {
          requestKey: e.requestKey,
          toolCallId: e.toolCallId,
          outcome: e.outcome,
          decidedBy: e.decidedBy,
          ...(e.answeredBy !== undefined ? { answeredBy: e.answeredBy } : {}),
        });
        this.sessionChanged(id);
        break;
      }
      case 'turn.started':
        if (clearFailures(ls)) this.sessionChanged(id);
        break;
      case 'turn.ended':
        turnEnded(ls, e.stopReason, e.error);
        this.emit(id, 'attention', { kind: 'turn.ended', text: `Turn ended: ${e.stopReason}` });
        this.log.prune(id);
        this.sessionChanged(id);
        break;
      case 'session.state':
        agentStateChanged(ls, e.state, e.previous);
        if (e.state === 'failed')
          this.emit(id, 'attention', { kind: 'crashed', text: 'The agent stopped working for this session.' });
        if (e.state === 'closed' || e.state === 'failed' || e.previous === 'failed') this.sessionChanged(id);
        break;
      case 'info.updated':
        this.sessionChanged(id);
        break;
      case 'catalog.updated': {
        // Whoever changed it (HTTP, a caps holder, a forwarding host, the agent itself): told once, here.
        const next = choiceOf(e.catalog);
        const changed = choiceChange(ls.choice, next);
        ls.choice = next;
        if (!changed) break;
        this.emit(id, 'choice.updated', { ...changed });
        this.sessionChanged(id);
        break;
      }
      default:
        break;
    }
    if (LIVE_CHANGES.has(e.type)) for (const fn of this.liveListeners) fn(ls);
  }

  /** The summary's `failure`: the live session's, or the last stored turn's when it is not attached here. */
  private failureOf(row: StoredSession, ls: LiveSession | undefined): Failure | undefined {
    return ls ? shownFailure(ls) : this.storedFailures.of(row);
  }

  // ---- reads ----
  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  summary(row: StoredSession): SessionSummaryInfo {
    const ls = this.live.get(row.id);
    const live = ls && {
      state: ls.hs.session.state,
      entries: ls.hs.thread.entries,
      title: ls.hs.thread.title,
      needsAttention: ls.pending.size > 0,
      choice: ls.choice,
    };
    return sessionSummary(row, live, this.failureOf(row, ls), this.origins.of(row));
  }

  /** The session at its current seq: the live thread, or the store's when it is not attached. */
  snapshot(row: StoredSession): SessionSnapshot {
    this.log.flush();
    const ls = this.live.get(row.id);
    const seq = this.log.head(row.id).last;
    // Every ended turn is in the store (the recorder commits at a turn's end, before the event goes out).
    const totals = this.harness.sessions.usage(row.id);
    const usage = { usage: totals.session, ...(totals.turn ? { turnUsage: totals.turn } : {}) };
    if (ls) {
      const t = ls.hs.thread;
      const s = ls.hs.session;
      const key = this.harness.host.targetOf(s);
      const info = key ? this.harness.connectionInfo(key) : undefined;
      const agentCaps = info?.agentCapabilities as
        { loadSession?: boolean; promptCapabilities?: { image?: boolean } } | undefined;
      const images = agentCaps?.promptCapabilities?.image ?? false;
      return {
        session: this.summary(row),
        seq,
        thread: threadJson(t),
        origin: ls.origin,
        pending: [...ls.pending.values()],
        queue: s.queue,
        ...(s.running ? { turnId: s.running.id } : {}),
        catalog: s.catalog,
        ...usage,
        agent: {
          ...(info?.agentInfo?.name ? { name: info.agentInfo.name } : {}),
          ...(info?.agentInfo?.version ? { version: info.agentInfo.version } : {}),
          images,
          ...(agentCaps?.loadSession !== undefined ? { loadSession: agentCaps.loadSession } : {}),
        },
        ...this.recording.of(row.id),
      };
    }
    const snap = this.harness.sessions.snapshot(row.id);
    return {
      session: this.summary(row),
      seq,
      thread: snap ? threadJson(snap) : { entries: [], plan: null, availableCommands: [], context: {} },
      origin: 'stored',
      pending: [],
      queue: [],
      ...usage,
      ...this.recording.of(row.id),
    };
  }

  async closeAll(): Promise<void> {
    this.offShared();
    this.offRecording();
    for (const ls of this.live.values()) ls.off();
    this.log.close();
  }
}
