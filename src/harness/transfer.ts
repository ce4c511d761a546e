/**
 * Talaria-side operations on stored sessions: finding one by any of its ids, archive, export
 * (Markdown, JSON, replayable fixture) and import of a fixture (its thread rebuilt by replay,
 * so it can be shown and continued like a recorded one).
 */
import { DEMO_AGENT_NAME } from '../demo/config.js';
import { TalariaError } from '../protocol/errors.js';
import { hooksForAgent } from '../providers/quirks/index.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { replayWireLog } from '../session/replay.js';
import {
  exportSessionFixture,
  exportSessionJson,
  importFixture,
  parseFixture,
  type Store,
  type StoredSession,
} from '../store/index.js';
import { snapshot, threadFromSnapshot, type ThreadSnapshot } from '../thread/snapshot.js';
import { toMarkdown } from '../thread/markdown.js';
import type { ExportFormat, Harness } from './types.js';

/** The registry id of the agent an `initialize` name is: the provider expecting that name (the demo agent's own). */
const providerNamed = (registry: ProviderRegistry, name: string): string | undefined =>
  registry.list().find((p) => p.agentName === name)?.id ??
  (name === DEMO_AGENT_NAME ? 'demo' : registry.has(name) ? name : undefined);

/** The agent decides the replay's hooks, through the quirk catalog (as a live session's): the stored agentInfo, else the log's. */
const hooksFor = (info: { name?: unknown; version?: unknown } | undefined) => {
  const hooks = hooksForAgent(info);
  return hooks ? { hooks } : { hooksForAgent };
};

export function findStored(store: Store, id: string): StoredSession | undefined {
  const direct = store.sessions.get(id);
  if (direct) return direct;
  const byAgent = store.sessions.findByAgentSessionId(id);
  if (byAgent) return byAgent;
  if (id.length < 4 || /[%_\\]/.test(id)) return undefined;
  // A unique prefix of either id (Talaria's or the agent's): people copy whichever they saw.
  const ids = store.sessions.idsWithPrefix(id, 2);
  if (ids.length > 1)
    throw new TalariaError('invalid_argument', `"${id}" matches more than one session; give more of its id`);
  return ids[0] ? store.sessions.get(ids[0]) : undefined;
}

export function mustFind(store: Store, id: string): StoredSession {
  const s = findStored(store, id);
  if (!s) throw new TalariaError('session_not_found', `no stored session ${id}`, { sessionId: id });
  return s;
}

/** The stored thread, else one rebuilt from the stored wire log. */
export async function storedThread(store: Store, row: StoredSession): Promise<ThreadSnapshot> {
  const snap = store.entries.loadSnapshot(row.id);
  if (snap) return snap;
  const wire = store.wire.read(row.id);
  const r = await replayWireLog(
    wire,
    hooksFor((row.agentInfo as { agentInfo?: { name?: string; version?: string } } | undefined)?.agentInfo),
  );
  const s = r.sessions.find((x) => x.id === row.agentSessionId) ?? r.sessions[0];
  return s ? snapshot(s.thread) : { entries: [], plan: null, availableCommands: [], context: {} };
}

export async function exportSession(store: Store, id: string, format: ExportFormat): Promise<string> {
  const row = mustFind(store, id);
  if (format === 'json') return JSON.stringify(exportSessionJson(store, row.id), null, 2) + '\n';
  if (format === 'fixture') return exportSessionFixture(store, row.id);
  const snap = await storedThread(store, row);
  return toMarkdown(threadFromSnapshot(snap), { title: row.title ?? snap.title ?? `Session ${row.id}` });
}

export async function importSession(
  store: Store,
  registry: ProviderRegistry,
  ensureWorkspace: (path: string) => string,
  text: string,
  o: Parameters<Harness['sessions']['import']>[1] = {},
): Promise<StoredSession> {
  // Replayed first: it validates the file and gives the agent, the cwd and the thread.
  const bad: string[] = [];
  const lines = parseFixture(text, (p) => bad.push(`line ${p.line}: ${p.error}`));
  if (lines.length === 0)
    throw new TalariaError(
      'invalid_argument',
      `not a wire fixture (one {"t_ms","dir","msg"} per line)${bad[0] ? `: ${bad[0]}` : ''}`,
    );
  const r = await replayWireLog(lines, { hooksForAgent });
  const name = typeof r.agentInfo?.name === 'string' ? r.agentInfo.name : undefined;
  const guess = name ? providerNamed(registry, name) : undefined;
  const first = r.sessions[0];
  const cwd = o.cwd ?? first?.cwd;
  const row = importFixture(store, text, {
    provider: o.provider ?? guess ?? 'imported',
    ...(cwd ? { cwd, workspaceId: ensureWorkspace(cwd) } : {}),
    ...(o.title ? { title: o.title } : {}),
    onBadLine: () => undefined, // reported above
  });
  const s = r.sessions.find((x) => x.id === row.agentSessionId) ?? first;
  if (s) store.entries.saveSnapshot(row.id, snapshot(s.thread));
  if (r.agentInfo) store.sessions.update(row.id, { agentInfo: { agentInfo: r.agentInfo, imported: true } });
  return store.sessions.get(row.id)!;
}

export function setArchived(store: Store, id: string, archived: boolean): StoredSession {
  const row = mustFind(store, id);
  if (archived) store.sessions.archive(row.id);
  else store.sessions.unarchive(row.id);
  return store.sessions.get(row.id)!;
}
