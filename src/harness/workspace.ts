/**
 * A workspace: a folder, its sessions (stored and at the agent) and opening them.
 *
 * Opening a stored session, in order:
 *   1. `session/load` when the agent can load and still has it → history from the agent;
 *   2. else `session/resume` when the agent can resume it → the agent keeps its context, the
 *      history shown is the stored thread;
 *   3. else a new agent session showing the stored thread (origin `restored`: the agent starts
 *      without that context; a notice says so). The stored row then points at the new agent id.
 * An id only the agent knows (its own history) is loaded (else resumed, its history not shown) and
 * stored from then on.
 *
 * A stored session is written by one harness at a time: its writer lease is taken before the
 * session is opened at the agent (session-locks.ts), so a second process waits or is refused
 * instead of loading a history that is about to change under it.
 */
import { resolve } from 'node:path';
import { TalariaError } from '../protocol/errors.js';
import { errorText } from '../session/errors.js';
import type { Session } from '../session/session.js';
import type { StoredSession, Workspace as WorkspaceRow } from '../store/index.js';
import { markPartial, pendingSeed, PARTIAL } from './branches.js';
import { applyChoices } from './choices.js';
import { withCreatedBy } from './provenance.js';
import { recordSession, type RecordInit } from './hosted.js';
import { keepTalariaSettlements, keepThreadMeta, seedThread } from './restore.js';
import { reopenTarget } from '../providers/hermes/provenance.js';
import { hasInjection } from '../thread/injected.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';
import { findStored } from './transfer.js';
import { listSessions } from './listing.js';
import { branchSession, forkSession, recoverable } from './workspace-branch.js';
import type { WorkspaceCore, WorkspaceDeps } from './workspace-deps.js';

export type { WorkspaceDeps } from './workspace-deps.js';
import type { Catalog } from '../session/catalog.js';
import type { HarnessSession, ListOptions, NewSessionOptions, OpenStoredOptions, Workspace } from './types.js';

/** A load/resume failure as a code and a one-line reason (the agent's detail included). */
function failureOf(e: unknown): { code: string; message: string } {
  if (e instanceof TalariaError) return { code: e.code, message: e.message };
  return { code: 'load_failed', message: errorText(e).split('\n')[0]! };
}

/**
 * A session whose thread Talaria seeded (restored, or forked in Talaria) is only partly known to
 * its agent: a later session/load replays just the part after the seed, so the stored thread,
 * which holds all of it, stays the history shown. Marked in the row's agentInfo. The same goes
 * for a thread in which Talaria sent the agent words of its own (a steer, a seed: thread/injected.ts):
 * the agent's replay would show them as the user's and lose Talaria's notes.
 */
const isPartial = (row: StoredSession, snap: ThreadSnapshot | undefined) =>
  (row.agentInfo as Record<string, unknown> | undefined)?.[PARTIAL] === 'partial' || hasInjection(snap?.entries ?? []);

export function createWorkspace(d: WorkspaceDeps, row: WorkspaceRow): Workspace {
  const ws = row.path;

  // Typed once in WorkspaceCore: fork and branch (workspace-branch.ts) open through it too.
  const target: WorkspaceCore['target'] = (provider, profile, o) => ({
    provider,
    ...(profile ? { profile } : {}),
    workspace: ws,
    cwd: resolve(o.cwd ?? ws),
    ...((o.permissionMode ?? d.permissionMode) ? { permissionMode: (o.permissionMode ?? d.permissionMode)! } : {}),
    ...(o.mcpServers ? { mcpServers: o.mcpServers } : {}),
    ...(o.additionalDirectories ? { additionalDirectories: o.additionalDirectories } : {}),
  });

  const info = (s: Session) => {
    const key = d.host.targetOf(s);
    return key ? d.host.connectionInfo(key) : undefined;
  };

  /** Runs `fn` holding the writer lease of stored session `id` (given back if `fn` fails). */
  const locked = async <T>(id: string, fn: () => Promise<T> | T): Promise<T> => {
    await d.locks.acquire(id);
    try {
      return await fn();
    } catch (e) {
      d.locks.release(id);
      throw e;
    }
  };

  /** Records a session whose row was just created (nobody else can hold its lease yet). */
  const recordNew = (s: Session, init: RecordInit) => locked(init.row.id, () => recordSession(d, s, init));

  /** A new store row for a live session (recorded from here on). */
  const store = (
    s: Session,
    provider: string,
    profile: string | undefined,
    createdBy?: NewSessionOptions['createdBy'],
  ): StoredSession =>
    d.store.sessions.create({
      agentSessionId: s.id,
      provider,
      ...(profile ? { profile } : {}),
      workspaceId: row.id,
      cwd: s.cwd,
      ...(s.thread.title ? { title: s.thread.title } : {}),
      agentInfo: withCreatedBy(d.agentInfoFor(provider, info(s)), createdBy),
    });

  /**
   * The agent and profile: an explicit profile wins, then the one the workspace row sets (its
   * own profile is created here when `create`; else it must exist already), then config.json's.
   * Undefined when the workspace's own profile is not made yet and `create` is false.
   */
  const chosenOr = async (o: { provider?: string; profile?: string }, create: boolean) => {
    const p = await d.pick({
      workspace: ws,
      ...(o.provider ? { provider: o.provider } : {}),
      ...(o.profile ? { profile: o.profile } : {}),
    });
    if (o.profile) return { provider: p.provider, profile: p.profile };
    const set = create ? await d.profiles.resolve(row.id, p.provider) : d.profiles.peek(row.id, p.provider);
    if (set?.own && !create && !set.exists) return undefined;
    return { provider: p.provider, profile: set?.profile ?? p.profile };
  };
  const chosen = async (o: { provider?: string; profile?: string }) => (await chosenOr(o, true))!;

  /** Options a spare was opened with (the workspace's defaults): anything else needs its own session/new. */
  const plain = (o: NewSessionOptions) =>
    (o.cwd === undefined || resolve(o.cwd) === resolve(ws)) &&
    !o.mcpServers?.length &&
    !o.additionalDirectories?.length &&
    (o.permissionMode === undefined || o.permissionMode === d.permissionMode);

  async function newSession(o: NewSessionOptions = {}): Promise<HarnessSession> {
    const { provider, profile } = await chosen(o);
    const key = { provider, ...(profile ? { profile } : {}), workspace: ws };
    const spare = plain(o) ? await d.warm.take(key) : undefined;
    const s = spare ?? (await d.host.newSession(target(provider, profile, o)));
    d.warm.remember(key, s.catalog, s);
    const hs = await recordNew(s, {
      row: store(s, provider, profile, o.createdBy),
      workspace: ws,
      origin: 'new',
      historyFrom: 'none',
    });
    if (d.host.keepsSpares(key)) d.warm.refillAfter(key, s);
    await applyChoices(hs, d.store.defaults.get(row.id, provider, profile), 'workspace');
    return hs;
  }

  /** The chosen agent started (and a spare session made where it helps); resolves when ready. */
  async function warm(o: { provider?: string; profile?: string } = {}): Promise<void> {
    // Warming never creates the workspace's own profile: its first session does.
    const c = await chosenOr(o, false);
    if (!c) return;
    await d.warm.prepare({ provider: c.provider, ...(c.profile ? { profile: c.profile } : {}), workspace: ws });
  }

  async function catalog(o: { provider?: string; profile?: string } = {}): Promise<Catalog | undefined> {
    const c = await chosenOr(o, false);
    if (!c) return undefined;
    return d.warm.catalog({ provider: c.provider, ...(c.profile ? { profile: c.profile } : {}), workspace: ws });
  }

  const setDefault: Workspace['setDefault'] = (o) => {
    d.store.defaults.set(row.id, o.provider, o.profile, o.kind, o.id);
  };
  const defaults: Workspace['defaults'] = (provider, profile) => d.store.defaults.get(row.id, provider, profile);

  function openStored(stored: StoredSession, o: OpenStoredOptions): Promise<HarnessSession> {
    return locked(stored.id, () => openLocked(stored, o));
  }

  async function openLocked(stored: StoredSession, o: OpenStoredOptions): Promise<HarnessSession> {
    const { provider, profile } = d.providerFor(stored);
    const wsPath = stored.workspaceId ? (d.store.workspaces.get(stored.workspaceId)?.path ?? ws) : ws;
    const t = { ...target(provider, profile, { ...o, cwd: stored.cwd }), workspace: wsPath };
    // A Hermes conversation that compression moved to a continuation row is reopened there:
    // loading the stored (root) id would give the ended root back. The stored id stays the
    // conversation's root (usage sums the lineage from it).
    const agentId = stored.agentSessionId
      ? reopenTarget(stored.agentSessionId, d.store.entries.getMeta(stored.id)?.meta)
      : undefined;
    let s: Session | undefined;
    let origin: HarnessSession['origin'] = 'loaded';
    /** Why the agent could not give the session back (any load failure falls back to the store). */
    let lost: { code: string; message: string } | undefined;
    if (agentId) {
      try {
        s = await d.host.loadSession(agentId, t);
      } catch (e) {
        // Agents word "I do not have it" in many ways (gemini-cli 0.61: -32603 "No previous
        // sessions found…"): whatever the failure, the stored thread is still there.
        lost = failureOf(e);
      }
      if (!s) {
        try {
          s = await d.host.resumeSession(agentId, t);
          origin = 'resumed';
        } catch (e) {
          if (lost?.code === 'unsupported') lost = failureOf(e);
        }
      }
    }
    if (!s) {
      s = await d.host.newSession(t);
      origin = 'restored';
    }
    let historyFrom: HarnessSession['historyFrom'] = origin === 'loaded' ? 'agent' : 'none';
    const snap = d.store.entries.loadSnapshot(stored.id);
    // A seed still owed from an earlier process: after an overflow the agent's session is still
    // poisoned, so the next message goes to a fresh one; a branch not prompted yet gets its copy
    // (reseed.ts). The stored thread is the one shown. A restored session is fresh already.
    const owed = pendingSeed(snap);
    if ((origin !== 'loaded' || isPartial(stored, snap) || owed) && seedThread(s, snap)) historyFrom = 'store';
    if (owed) d.host.seedNext(s, origin === 'restored' ? { ...owed, inPlace: true } : owed);
    if (historyFrom === 'agent') keepTalariaSettlements(s, snap);
    if (origin !== 'restored') keepThreadMeta(s, snap);
    if (origin === 'restored') {
      const why = !agentId
        ? 'it was never opened at the agent'
        : lost?.code === 'session_not_found'
          ? 'the agent no longer has it'
          : lost?.code === 'unsupported'
            ? 'the agent cannot load or resume sessions'
            : `the agent could not load it: ${lost?.message ?? 'unknown error'}`;
      s.notice(
        'info',
        'history_restored',
        `Restored from Talaria's store (${why}); the agent starts this conversation without its earlier context.`,
      );
      d.store.sessions.update(stored.id, { agentSessionId: s.id, agentInfo: markPartial(stored.agentInfo) });
    }
    const current = d.store.sessions.get(stored.id)!;
    const hs = recordSession(d, s, { row: current, workspace: wsPath, origin, historyFrom });
    await applyChoices(
      hs,
      {
        ...(current.modelId ? { modelId: current.modelId } : {}),
        ...(current.modeId ? { modeId: current.modeId } : {}),
      },
      'session',
    );
    return hs;
  }

  async function openSession(id: string, o: OpenStoredOptions = {}): Promise<HarnessSession> {
    const stored = findStored(d.store, id);
    if (stored) return openStored(stored, o);
    // Only the agent may know it (its own history from before Talaria, or another client's).
    const { provider, profile } = await chosen(o);
    const t = target(provider, profile, o);
    const label = d.registry.require(provider).label;
    const gone = () =>
      new TalariaError('session_not_found', `no session ${id} in Talaria's store or at ${label}`, { sessionId: id });
    let s: Session;
    let origin: HarnessSession['origin'] = 'loaded';
    try {
      s = await d.host.loadSession(id, t);
    } catch (e) {
      if (recoverable(e, ['session_not_found'])) throw gone();
      if (!recoverable(e, ['unsupported'])) throw e;
      // An agent that cannot load may still resume (what initialize says decides, in the host).
      try {
        s = await d.host.resumeSession(id, t);
        origin = 'resumed';
      } catch (e2) {
        if (recoverable(e2, ['session_not_found'])) throw gone();
        if (!recoverable(e2, ['unsupported'])) throw e2;
        throw Object.assign(
          new TalariaError(
            'unsupported',
            `${label} can neither load nor resume sessions, so Talaria cannot open ${id}`,
            { sessionId: id },
          ),
          {
            fix: `Continue it in ${label} itself, or start a new session here.`,
          },
        );
      }
      // Resumed: the agent keeps the context but replays nothing, and Talaria never stored it.
      s.notice(
        'info',
        'history_not_replayed',
        `Resumed at ${label}: the agent keeps this conversation's context, but cannot replay it, so its earlier messages are not shown.`,
      );
    }
    return recordNew(s, {
      row: store(s, provider, profile),
      workspace: ws,
      origin,
      historyFrom: origin === 'loaded' ? 'agent' : 'none',
    });
  }

  const core: WorkspaceCore = { d, ws, target, store, recordNew };

  const sessions = (o: ListOptions = {}) => listSessions({ ...d, isSpare: (id) => d.warm.isSpare(id) }, row, o);

  return {
    id: row.id,
    path: ws,
    name: row.name,
    row,
    newSession,
    sessions,
    openSession,
    forkSession: (id, o = {}) => forkSession(core, id, o),
    branchSession: (source, o) => branchSession(core, source, o),
    setDefault,
    defaults,
    warm,
    catalog,
  };
}
