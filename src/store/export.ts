/**
 * Session export (Markdown, JSON, replayable fixture) and fixture import. Thread code is not
 * imported at run time: Markdown rendering (and rebuilding a thread from the wire) is injected.
 */
import { redactMessage } from '../os/redact.js';
import type { RawMessage, WireLogLine } from '../protocol/types.js';
import type { Entry } from '../thread/types.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';
import type { ThreadMeta } from './entries.js';
import { StoreError } from './errors.js';
import type { EntriesRepo } from './entries.js';
import type { SessionsRepo } from './sessions.js';
import type { TurnsRepo } from './turns.js';
import type { PermissionsRepo } from './permissions.js';
import type { WireLogRepo } from './wire-log.js';
import { parseFixture, type FixtureProblem } from './json.js';
import type { AuditRecord } from './permissions.js';
import type { StoredSession } from './sessions.js';
import type { StoredTurn } from './turns.js';
import { asRecord } from '../os/record.js';

/** The repositories export and import use (the Store has them; a narrower type keeps index.ts → export.ts one way). */
type Store = {
  readonly sessions: SessionsRepo;
  readonly wire: WireLogRepo;
  readonly entries: EntriesRepo;
  readonly turns: TurnsRepo;
  readonly permissions: PermissionsRepo;
  transaction<T>(fn: () => T): T;
};

export interface SessionExport {
  format: 'talaria.session';
  version: 1;
  session: StoredSession;
  turns: StoredTurn[];
  entries: Entry[];
  /** Plan, commands, mode, title, context… (the snapshot without entries), when stored. */
  thread?: ThreadMeta;
  audit: AuditRecord[];
  wire: WireLogLine[];
}

/** Renders a stored thread, e.g. `(snap, s) => toMarkdown(threadFromSnapshot(snap), { title: s.title })`. */
export type MarkdownRenderer = (snapshot: ThreadSnapshot, session: StoredSession) => string;

function mustGet(store: Store, id: string): StoredSession {
  const s = store.sessions.get(id);
  if (!s) throw new StoreError('not_found', `no stored session ${id}`, { sessionId: id });
  return s;
}

export function exportSessionJson(store: Store, id: string): SessionExport {
  const session = mustGet(store, id);
  const out: SessionExport = {
    format: 'talaria.session',
    version: 1,
    session,
    turns: store.turns.list(id),
    entries: store.entries.list(id),
    audit: store.permissions.listAudit(id),
    // Masked again: rows stored before masking existed may still hold secrets.
    wire: store.wire.read(id).map((l) => ({ ...l, msg: redactMessage(l.msg) })),
  };
  const meta = store.entries.getMeta(id);
  if (meta) out.thread = meta;
  return out;
}

/**
 * Markdown of the stored thread. With no stored thread, `rebuild` (e.g. a replay of the wire log
 * through the reducer) supplies one; without it an empty thread is rendered.
 */
export function exportSessionMarkdown(
  store: Store,
  id: string,
  render: MarkdownRenderer,
  opts: { rebuild?: (wire: WireLogLine[]) => ThreadSnapshot } = {},
): string {
  const session = mustGet(store, id);
  const snap = store.entries.loadSnapshot(id) ??
    opts.rebuild?.(store.wire.read(id)) ?? { entries: [], plan: null, availableCommands: [], context: {} };
  return render(snap, session);
}

/** The session's wire log as fixture NDJSON: replayable, and usable as a test fixture. */
export function exportSessionFixture(store: Store, id: string): string {
  mustGet(store, id);
  return store.wire.exportNdjson(id);
}

export interface ImportOptions {
  /** Default: the agent's name from the recorded initialize, else "imported". */
  provider?: string;
  /** Default: the recorded session/new cwd, else process.cwd(). */
  cwd?: string;
  /** Default: the first prompt's text, shortened. */
  title?: string;
  id?: string;
  profile?: string;
  workspaceId?: string;
  /** Skip bad lines (reported here) instead of refusing the whole file. */
  onBadLine?: (p: FixtureProblem) => void;
}

/** Imports fixture NDJSON as a new stored session (session row + wire log, one transaction). */
export function importFixture(store: Store, text: string, opts: ImportOptions = {}): StoredSession {
  let lines: WireLogLine[];
  try {
    lines = parseFixture(text, opts.onBadLine);
  } catch (err) {
    throw new StoreError('invalid_argument', `not a wire fixture: ${(err as Error).message}`, undefined, {
      cause: err,
    });
  }
  const found = inspect(lines);
  return store.transaction(() => {
    const session = store.sessions.create({
      provider: opts.provider ?? found.agentName ?? 'imported',
      cwd: opts.cwd ?? found.cwd ?? process.cwd(),
      ...(opts.id !== undefined ? { id: opts.id } : {}),
      ...(opts.profile !== undefined ? { profile: opts.profile } : {}),
      ...(opts.workspaceId !== undefined ? { workspaceId: opts.workspaceId } : {}),
      ...((opts.title ?? found.title) !== undefined ? { title: (opts.title ?? found.title)! } : {}),
      ...(found.agentSessionId !== undefined ? { agentSessionId: found.agentSessionId } : {}),
      ...(found.agentInfo !== undefined ? { agentInfo: found.agentInfo } : {}),
    });
    store.wire.append(session.id, lines);
    return store.sessions.get(session.id)!;
  });
}

interface Found {
  agentSessionId?: string;
  cwd?: string;
  agentInfo?: unknown;
  agentName?: string;
  title?: string;
}

/** What a recorded conversation says about itself: the agent, the first session id, its cwd, the first prompt. */
function inspect(lines: WireLogLine[]): Found {
  const found: Found = {};
  const methods = new Map<unknown, string>();
  for (const { dir, msg } of lines) {
    if (dir === 'client->agent' && typeof msg.method === 'string') {
      if (msg.id !== undefined) methods.set(msg.id, msg.method);
      const p = asRecord(msg.params);
      if (
        (msg.method === 'session/new' || msg.method === 'session/load' || msg.method === 'session/resume') &&
        found.cwd === undefined &&
        typeof p?.cwd === 'string'
      )
        found.cwd = p.cwd;
      if (found.agentSessionId === undefined && typeof p?.sessionId === 'string' && msg.method.startsWith('session/'))
        found.agentSessionId = p.sessionId;
      if (msg.method === 'session/prompt' && found.title === undefined) found.title = promptTitle(p?.prompt);
    } else if (dir === 'agent->client' && msg.id !== undefined && msg.method === undefined) {
      const method = methods.get(msg.id);
      const r = asRecord(msg.result);
      if (method === 'initialize' && r && r.agentInfo !== undefined) {
        found.agentInfo = r.agentInfo;
        const name = asRecord(r.agentInfo)?.name;
        if (typeof name === 'string' && name !== '') found.agentName = name;
      }
      if (method === 'session/new' && found.agentSessionId === undefined && typeof r?.sessionId === 'string')
        found.agentSessionId = r.sessionId;
    }
  }
  return found;
}

function promptTitle(prompt: unknown): string | undefined {
  if (!Array.isArray(prompt)) return undefined;
  const text = prompt
    .map((b: RawMessage) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  return text.length > 80 ? text.slice(0, 79) + '…' : text;
}
