/**
 * A stored session's fork (at the agent when it can fork, else in Talaria) and its branches (a
 * rewind to an earlier message, or the conversation continued with another agent or from a
 * transcript Talaria never stored): each a new Talaria session, recorded in the branch tree.
 */
import { TalariaError } from '../protocol/errors.js';
import type { Session } from '../session/session.js';
import { cutBefore, markPartial } from './branches.js';
import { branchSource } from './branch-source.js';
import { applyChoices } from './choices.js';
import { seedThread } from './restore.js';
import { findStored } from './transfer.js';
import type { BranchOptions, ForeignTranscript, HarnessSession, OpenStoredOptions } from './types.js';
import type { WorkspaceCore } from './workspace-deps.js';
import { checkCwdHere } from './workspace-here.js';

/** A failure the caller falls back from (the agent cannot do it, or no longer has the session). */
export const recoverable = (e: unknown, codes: string[]) => e instanceof TalariaError && codes.includes(e.code);

export async function forkSession(c: WorkspaceCore, id: string, o: OpenStoredOptions): Promise<HarnessSession> {
  const { d, ws, target, store, recordNew } = c;
  const src = findStored(d.store, id);
  if (!src) throw new TalariaError('session_not_found', `no stored session ${id}`, { sessionId: id });
  const { provider, profile } = d.providerFor(src);
  const t = target(provider, profile, { ...o, cwd: src.cwd });
  let s: Session | undefined;
  if (src.agentSessionId) {
    try {
      s = await d.host.forkSession(src.agentSessionId, t);
    } catch (e) {
      if (!recoverable(e, ['unsupported', 'session_not_found'])) throw e;
    }
  }
  const origin: HarnessSession['origin'] = s ? 'forked' : 'restored';
  s ??= await d.host.newSession(t);
  const historyFrom = seedThread(s, d.store.entries.loadSnapshot(src.id)) ? 'store' : 'none';
  if (origin === 'restored')
    s.notice(
      'info',
      'history_restored',
      `Forked in Talaria from ${src.id}; the agent cannot fork it, so it starts without the earlier context.`,
    );
  const created = store(s, provider, profile);
  d.store.transaction(() => {
    d.store.sessions.update(created.id, {
      title: `${src.title ?? 'Session'} (fork)`,
      ...(origin === 'restored' ? { agentInfo: markPartial(created.agentInfo) } : {}),
    });
    // In the branch tree too, so a list can nest the fork under what it was forked from.
    d.store.branches.add({
      sessionId: created.id,
      parentId: src.id,
      reason: 'fork',
      agentSessionId: s.id,
      ...(src.agentSessionId ? { previousAgentSessionId: src.agentSessionId } : {}),
      provider,
    });
  });
  const hs = await recordNew(s, { row: d.store.sessions.get(created.id)!, workspace: ws, origin, historyFrom });
  // A fork keeps the model and mode chosen for its source.
  await applyChoices(
    hs,
    { ...(src.modelId ? { modelId: src.modelId } : {}), ...(src.modeId ? { modeId: src.modeId } : {}) },
    'session',
  );
  return hs;
}

/**
 * A branch of a stored session: a rewind (`at`: the user message to go back to — the branch holds
 * what came before it) or the conversation continued with another agent (`provider`). Either way
 * a new Talaria session on a fresh agent session, whose first prompt carries the conversation as
 * a compact seed (host/reseed.ts); recorded in the branch tree with its provenance. A transcript
 * Talaria never stored (Hermes' other channels) is continued the same way, with no parent.
 */
export async function branchSession(
  c: WorkspaceCore,
  source: string | ForeignTranscript,
  o: BranchOptions,
): Promise<HarnessSession> {
  const { d, ws, target, store, recordNew } = c;
  const src = branchSource(source, o, { ...d, ws });
  const from = src.from;
  const provider = o.provider ?? from.provider;
  const profile = o.provider ? o.profile : (o.profile ?? from.profile);
  const cut = o.at !== undefined && src.stored ? cutBefore(src.snap, o.at, src.stored.id) : src.snap;
  const reason = o.at !== undefined ? 'rewind' : 'continue';
  // Another host's session continued here: its cwd may be a path this host does not have.
  checkCwdHere(d.store.workspaces, src.cwd);
  const s = await d.host.newSession(target(provider, profile, { ...o, cwd: src.cwd }));
  const historyFrom = seedThread(s, cut) ? 'store' : 'none';
  const fromLabel = src.fromLabel;
  const toLabel = d.registry.get(provider)?.label ?? provider;
  const where =
    reason === 'rewind' ? 'went back to an earlier message' : `continued with ${toLabel} (from ${fromLabel})`;
  s.notice(
    'info',
    'branched',
    `A branch of ${src.name}: the conversation ${where}. The agent gets it as a compact copy with the next message.`,
    {
      reason,
      ...(src.stored ? { parentId: src.stored.id } : { foreignRef: src.agentSessionId }),
      ...(o.at ? { forkEntryId: o.at } : {}),
      fromProvider: from.provider,
      fromLabel,
    },
  );
  const created = store(s, provider, profile);
  const title = `${src.title ?? 'Session'} (${reason === 'rewind' ? 'rewind' : `in ${toLabel}`})`;
  d.store.transaction(() => {
    d.store.sessions.update(created.id, { title, agentInfo: markPartial(created.agentInfo) });
    d.store.branches.add({
      sessionId: created.id,
      ...(src.stored ? { parentId: src.stored.id } : {}),
      reason,
      agentSessionId: s.id,
      ...(src.agentSessionId ? { previousAgentSessionId: src.agentSessionId } : {}),
      provider,
      ...(reason === 'continue' ? { fromProvider: from.provider } : {}),
      ...(o.at ? { forkEntryId: o.at } : {}),
    });
  });
  // The seeded thread came with its source's title: the branch is named for what it is.
  s.thread.title = title;
  if (historyFrom === 'store')
    d.host.seedNext(s, { reason, inPlace: true, ...(reason === 'continue' ? { from: fromLabel } : {}) });
  const hs = await recordNew(s, {
    row: d.store.sessions.get(created.id)!,
    workspace: ws,
    origin: 'branched',
    historyFrom,
  });
  // The same agent keeps the model and mode chosen for its source.
  const st = src.stored;
  if (st && provider === from.provider)
    await applyChoices(
      hs,
      { ...(st.modelId ? { modelId: st.modelId } : {}), ...(st.modeId ? { modeId: st.modeId } : {}) },
      'session',
    );
  return hs;
}
