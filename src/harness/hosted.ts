/**
 * A live session opened through the harness, recorded as it happens: its frames (attributed by
 * the frame router), thread entries, turns and permission audit go to the store through one
 * recorder. What happened while the host was still opening the session (early updates, a load's
 * replay, the catalog) is written first as a thread snapshot, since nothing could subscribe yet.
 */
import type { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { Logger } from '../protocol/types.js';
import type { SessionEvent } from '../session/events.js';
import type { Session } from '../session/session.js';
import { createRecorder, type Store, type StoredSession } from '../store/index.js';
import { snapshot } from '../thread/snapshot.js';
import type { ContentBlock } from '../thread/types.js';
import { keyId, type FrameRouter } from './frame-router.js';
import type { HarnessSession, SessionOrigin } from './types.js';

export interface RecordingDeps {
  store: Store;
  host: AgentHost;
  router: FrameRouter;
  logger: Logger;
  /** Agent session id → the audit tap of its recorder. */
  decisions: Map<string, (e: PermissionDecisionEvent) => void>;
  /** Agent session id → Talaria id (rules learned from "always" answers are stored under it). */
  talariaIds: Map<string, string>;
  live: Set<HarnessSession>;
}

export interface RecordInit {
  row: StoredSession;
  workspace: string;
  origin: SessionOrigin;
  historyFrom: HarnessSession['historyFrom'];
}

export function recordSession(d: RecordingDeps, session: Session, init: RecordInit): HarnessSession {
  const { store, host } = d;
  const key = host.targetOf(session);
  if (!key) throw new Error(`session ${session.id} is not hosted`);
  const id = init.row.id;
  // Everything the thread holds already (setup events happened before anyone could subscribe).
  store.entries.saveSnapshot(id, snapshot(session.thread));
  const rec = createRecorder(store, { sessionKey: id, agentSessionId: session.id, logger: d.logger });
  const router = d.router.for(keyId(key));
  let titled = init.row.title !== undefined || session.thread.title !== undefined;
  let done = false;

  const cleanup = () => {
    if (done) return;
    done = true;
    off();
    rec.close();
    router.release(session.id, rec.onFrame);
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
  router.claim(session.id, rec.onFrame);
  d.decisions.set(session.id, rec.onPermissionDecision);
  d.talariaIds.set(session.id, id);
  // Global, then workspace, then this session's rules (last match wins in the policy).
  const scope = init.row.workspaceId ? { sessionId: id, workspaceId: init.row.workspaceId } : { sessionId: id };
  for (const r of store.permissions.rulesFor(scope)) session.rules.push(r);
  // The setup's frames are on disk before the caller gets the session.
  rec.flush();

  const hs: HarnessSession = {
    id,
    agentSessionId: session.id,
    provider: init.row.provider,
    profile: init.row.profile,
    workspace: init.workspace,
    origin: init.origin,
    historyFrom: init.historyFrom,
    session,
    get thread() {
      return session.thread;
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
    subscribe: (fn) => session.subscribe(fn),
    events: (o) => session.events(o),
    stored: () => store.sessions.get(id) ?? init.row,
    flush: () => rec.flush(),
    async close() {
      if (!done) await host.closeSession(session);
      cleanup();
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
