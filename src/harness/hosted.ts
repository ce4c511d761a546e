/**
 * A live session opened through the harness, recorded as it happens: its frames (each session
 * emits its own, raw line included), thread entries, turns and permission audit go to the store
 * through one recorder. What happened while the host was still opening the session is written
 * first: its frames (held since the host created it, see setup-frames.ts) and its thread as a
 * snapshot (early updates, a load's replay, the catalog), since nothing could subscribe yet.
 */
import type { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import { TalariaError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import type { SessionEvent } from '../session/events.js';
import type { Session } from '../session/session.js';
import type { Store, StoredSession } from '../store/index.js';
import { snapshot } from '../thread/snapshot.js';
import type { ContentBlock } from '../thread/types.js';
import { createRecorder, type Recorder } from './recorder.js';
import { permissionRules } from './rules.js';
import type { SessionLocks } from './session-locks.js';
import type { SetupFrames } from './setup-frames.js';
import type { HarnessSession, RecordingDelay, RecordingError, SessionOrigin } from './types.js';

export interface RecordingDeps {
  store: Store;
  host: AgentHost;
  logger: Logger;
  /** Frames of sessions not recorded yet. */
  setup: SetupFrames;
  /** Writer leases of the stored sessions this harness has open. */
  locks: SessionLocks;
  /** Agent session id → the audit tap of its recorder. */
  decisions: Map<string, (e: PermissionDecisionEvent) => void>;
  /** Agent session id → Talaria id (rules learned from "always" answers are stored under it). */
  talariaIds: Map<string, string>;
  live: Set<HarnessSession>;
  /** A recording failure (also kept on the HarnessSession); the faces turn it into an error exit. */
  onRecordingError?: (e: RecordingError) => void;
  /** Recording waits for the store, or caught up (also on HarnessSession.recording). */
  onRecordingDelay?: (e: RecordingDelay) => void;
}

export interface RecordInit {
  row: StoredSession;
  workspace: string;
  origin: SessionOrigin;
  historyFrom: HarnessSession['historyFrom'];
}

export function recordSession(d: RecordingDeps, session: Session, init: RecordInit): HarnessSession {
  const { store, host } = d;
  if (!host.targetOf(session)) throw new Error(`session ${session.id} is not hosted`);
  const id = init.row.id;
  let failure: RecordingError | undefined;
  const report = (err: Error) => {
    const e: RecordingError = {
      sessionId: id,
      error: new TalariaError(
        'recording_failed',
        `session ${id} is not being stored completely: ${err.message}`,
        { sessionId: id },
        { cause: err },
      ),
    };
    failure ??= e;
    try {
      d.onRecordingError?.(e);
    } catch (thrown) {
      d.logger.error('onRecordingError threw', { error: String(thrown) });
    }
  };
  // The subscriptions below are this session's own: no filter by agent session id, which changes
  // when the host continues the conversation in a fresh agent session (host/reseed.ts).
  // Everything the thread holds already (setup events happened before anyone could subscribe).
  store.entries.saveSnapshot(id, snapshot(session.thread));
  const rec: Recorder = createRecorder(store, {
    sessionKey: id,
    logger: d.logger,
    onError: report,
    ...(d.onRecordingDelay ? { onDelay: (e) => d.onRecordingDelay?.({ ...e, sessionId: id }) } : {}),
  });
  const setup = d.setup.take(session);
  for (const f of setup.frames) rec.onFrame(f);
  if (setup.dropped > 0) report(new Error(`${setup.dropped} frames of its setup did not fit the setup buffer`));
  const offFrames = session.subscribeFrames(rec.onFrame);
  let titled = init.row.title !== undefined || session.thread.title !== undefined;
  let done = false;

  const cleanup = () => {
    if (done) return;
    done = true;
    off();
    offFrames();
    rec.close();
    d.locks.release(id);
    if (d.decisions.get(session.id) === rec.onPermissionDecision) d.decisions.delete(session.id);
    if (d.talariaIds.get(session.id) === id) d.talariaIds.delete(session.id);
    d.live.delete(hs);
  };

  const off = session.subscribe((ev: SessionEvent) => {
    rec.onEvent(ev);
    if (ev.type === 'info.updated' && ev.title !== undefined) titled = true;
    else if (ev.type === 'turn.started' && !titled) {
      // Until the agent names the session, its first prompt does.
      const t = promptTitle(ev.prompt);
      if (t && !store.closed) store.sessions.setTitle(id, t);
      titled = t !== undefined;
    } else if (ev.type === 'session.closed') cleanup();
  });
  d.decisions.set(session.id, rec.onPermissionDecision);
  d.talariaIds.set(session.id, id);
  // Global, then workspace, then this session's rules (last match wins in the policy).
  const scope = init.row.workspaceId ? { sessionId: id, workspaceId: init.row.workspaceId } : { sessionId: id };
  for (const r of permissionRules(store.permissions.rulesFor(scope), d.logger)) session.rules.push(r);
  // The setup's frames are on disk before the caller gets the session.
  rec.flush();

  const hs: HarnessSession = {
    id,
    get agentSessionId() {
      return session.id;
    },
    provider: init.row.provider,
    profile: init.row.profile,
    workspace: init.workspace,
    origin: init.origin,
    historyFrom: init.historyFrom,
    session,
    get thread() {
      return session.thread;
    },
    get state() {
      return session.state;
    },
    get catalog() {
      return session.catalog;
    },
    prompt: (input) => session.prompt(input),
    cancel: () => session.cancel(),
    // A person's choice is kept with the session (re-applied when it is reopened).
    setModel: async (m) => {
      await session.setModel(m);
      if (!store.closed) store.sessions.setChoice(id, 'model', session.catalog.model?.currentId ?? m);
    },
    setMode: async (m) => {
      await session.setMode(m);
      if (!store.closed) store.sessions.setChoice(id, 'mode', session.catalog.mode?.currentId ?? m);
    },
    answerPermission: (key, answer, by) => session.answerPermission(key, answer, by),
    subscribe: (fn) => session.subscribe(fn),
    events: (o) => session.events(o),
    stored: () => store.sessions.get(id) ?? init.row,
    flush: () => rec.flush(),
    recording: {
      get lastSeq() {
        return rec.lastSeq;
      },
      get lostFrames() {
        return rec.lostFrames;
      },
      get heldFrames() {
        return rec.heldFrames;
      },
      get delayedSince() {
        return rec.delayedSince;
      },
      get error() {
        return failure?.error;
      },
    },
    async close() {
      try {
        if (!done) await host.closeSession(session);
      } finally {
        cleanup();
      }
    },
  };
  d.live.add(hs);
  return hs;
}

export function promptTitle(prompt: readonly ContentBlock[] | undefined): string | undefined {
  const text = (prompt ?? [])
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  return text.length > 80 ? text.slice(0, 79) + '…' : text;
}
