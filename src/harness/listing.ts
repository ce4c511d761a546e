/**
 * A workspace's sessions: Talaria's store merged with the agent's own session/list. Sessions in
 * both are marked `atAgent`; ones only the agent lists appear as `stored: false`; a stored one the
 * agent no longer lists is `atAgent: false`. Archived sessions stay hidden (Talaria-side archive)
 * even when the agent lists them.
 */
import type { AgentHost } from '../host/host.js';
import type { Store, StoredSession, Workspace as WorkspaceRow } from '../store/index.js';
import { readProvenance, reopenTarget } from '../providers/hermes/provenance.js';
import { findStored } from './transfer.js';
import type { ListOptions, ListResult, SessionSummary } from './types.js';

export interface ListingDeps {
  store: Store;
  host: AgentHost;
  /** A spare session of the warm pool (never listed, even if an agent showed it). */
  isSpare?: (agentSessionId: string) => boolean;
}

export async function listSessions(d: ListingDeps, row: WorkspaceRow, o: ListOptions = {}): Promise<ListResult> {
  const ws = row.path;
  const rows = d.store.sessions.list({
    workspaceId: row.id,
    ...(o.includeArchived ? { includeArchived: true } : {}),
    ...(o.archivedOnly ? { archivedOnly: true } : {}),
  });
  const out: SessionSummary[] = rows.map(summary);
  if (!o.agent) return { sessions: out, agentProblem: 'the agent was not asked' };
  let listed;
  try {
    listed = await d.host.listSessions({
      provider: o.agent.provider,
      ...(o.agent.profile ? { profile: o.agent.profile } : {}),
      workspace: ws,
      cwd: ws,
    });
  } catch (e) {
    return { sessions: out, agentProblem: e instanceof Error ? e.message : String(e) };
  }
  const byAgentId = new Map(
    out.filter((s) => s.agentSessionId && s.provider === o.agent!.provider).map((s) => [s.agentSessionId!, s]),
  );
  for (const s of byAgentId.values()) s.atAgent = false;
  // Hermes lists a compression continuation as a session of its own; it is this conversation.
  for (const s of [...byAgentId.values()])
    for (const id of lineageIds(d.store, s)) if (!byAgentId.has(id)) byAgentId.set(id, s);
  for (const l of listed) {
    const mine = byAgentId.get(l.sessionId);
    if (mine) {
      mine.atAgent = true;
      if (l.updatedAt) mine.agentUpdatedAt = String(l.updatedAt);
      if (!mine.title && l.title) mine.title = String(l.title);
      continue;
    }
    // Archived ones stay hidden even when the agent lists them (Talaria-side archive).
    const hidden = !o.includeArchived && findStored(d.store, l.sessionId)?.archived === true;
    if (hidden || o.archivedOnly || d.isSpare?.(l.sessionId)) continue;
    out.push({
      id: l.sessionId,
      agentSessionId: l.sessionId,
      provider: o.agent.provider,
      ...(o.agent.profile ? { profile: o.agent.profile } : {}),
      cwd: typeof l.cwd === 'string' ? l.cwd : ws,
      ...(l.title ? { title: String(l.title) } : {}),
      archived: false,
      stored: false,
      atAgent: true,
      ...(l.updatedAt
        ? { agentUpdatedAt: String(l.updatedAt), updatedAt: Date.parse(String(l.updatedAt)) || undefined }
        : {}),
    } as SessionSummary);
  }
  return { sessions: out };
}

/** The Hermes rows a stored conversation moved to (its current head and that head's parent), from its thread meta. */
function lineageIds(store: Store, s: SessionSummary): string[] {
  const meta = store.entries.getMeta(s.id)?.meta;
  const head = reopenTarget(s.agentSessionId!, meta);
  if (head === s.agentSessionId) return [];
  const parent = readProvenance(meta)?.parentHermesSessionId;
  return parent && parent !== s.agentSessionId ? [head, parent] : [head];
}

function summary(r: StoredSession): SessionSummary {
  const s: SessionSummary = {
    id: r.id,
    provider: r.provider,
    cwd: r.cwd,
    archived: r.archived,
    stored: true,
    updatedAt: r.lastActiveAt ?? r.createdAt,
  };
  if (r.agentSessionId) s.agentSessionId = r.agentSessionId;
  if (r.profile) s.profile = r.profile;
  if (r.title) s.title = r.title;
  return s;
}
