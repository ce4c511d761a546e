/**
 * One session as the UI draws it: a snapshot plus the stream events after it, folded in seq
 * order. The typed client's LiveSocket delivers each event once (it resumes with `since` after
 * a drop); this store also ignores any seq it already folded, so a refresh or a resync can never
 * double an entry. Events fold into a working view (entries mutated in place, a version bumps):
 * a 10,000-entry thread is not copied on every streamed chunk. Listeners are told at most once
 * per FLUSH_MS, and what they get is a copy that never changes after (see `flush`).
 */
// The contract's types, not ../api/server.js: that module touches the DOM, and this one is unit-tested in Node.
import type { PendingPermission, QueuedPrompt, SessionSnapshot, SessionSummaryInfo, StreamEvent } from '../../../src/server/contract/index.js';
import { readProvenance, type HermesProvenance } from '../../../src/providers/hermes/provenance.js';
import { appendText, partsOf } from './stream-text.js';
import { isObj, num, readCatalog, readCommands, readContext, readPlan, str, type CatalogView, type CommandItem, type ContextView, type PlanItem } from './entries.js';
import { keepPlanAt, planAtOf, turnStartId } from './plan-at.js';

export { copyPlanAt } from './plan-at.js';

export interface Resolution {
  requestKey: string;
  toolCallId: string;
  decidedBy: string;
  answeredBy?: string;
  outcome: unknown;
}

export interface Usage {
  input?: number;
  output?: number;
  total?: number;
}

export interface SessionView {
  sessionId: string;
  loaded: boolean;
  seq: number;
  /** Bumps on every change (entries are mutated in place). */
  version: number;
  summary?: SessionSummaryInfo;
  entries: unknown[];
  plan: PlanItem[] | null;
  /**
   * The entry the plan follows in the thread: the user message of the turn that last updated it
   * (the plan belongs to its turn, not pinned over later ones). Kept by this browser across a
   * reload; unknown (undefined) for a plan made elsewhere, then the thread places it.
   */
  planAt?: string;
  title?: string;
  modeId?: string;
  modelId?: string;
  catalog: CatalogView;
  /** The agent's slash commands (available_commands_update). */
  commands: CommandItem[];
  context: ContextView;
  state: string;
  turnId?: string;
  pending: PendingPermission[];
  resolved: Map<string, Resolution>;
  queue: QueuedPrompt[];
  agent?: SessionSnapshot['agent'];
  origin?: string;
  turnUsage?: Usage;
  sessionUsage: Usage;
  lastStop?: { stopReason: string; error?: { code: string; message: string } };
  /** Hermes' lineage across compression (its `_meta.hermes.sessionProvenance`), when it sent one. */
  hermes?: HermesProvenance;
}

export function readUsage(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined;
  const input = num(u.inputTokens);
  const output = num(u.outputTokens);
  const total = num(u.totalTokens) ?? (input !== undefined || output !== undefined ? (input ?? 0) + (output ?? 0) : undefined);
  if (input === undefined && output === undefined && total === undefined) return undefined;
  return { ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}), ...(total !== undefined ? { total } : {}) };
}

const hermesOf = (meta: unknown): { hermes?: HermesProvenance } => {
  const p = readProvenance(meta);
  return p ? { hermes: p } : {};
};

const addUsage = (a: Usage, b: Usage | undefined): Usage =>
  b ? { input: (a.input ?? 0) + (b.input ?? 0), output: (a.output ?? 0) + (b.output ?? 0), total: (a.total ?? 0) + (b.total ?? 0) } : a;

function empty(sessionId: string): SessionView {
  return {
    sessionId,
    loaded: false,
    seq: 0,
    version: 0,
    entries: [],
    plan: null,
    catalog: {},
    commands: [],
    context: {},
    state: 'stored',
    pending: [],
    resolved: new Map(),
    queue: [],
    sessionUsage: {},
  };
}

/** Shortest time between two renders of one session (20 a second is smooth for streamed text). */
const FLUSH_MS = 50;

export class SessionStore {
  /** Where events fold (mutated in place); never handed out. */
  private view: SessionView;
  /** The last view told to listeners: never mutated (React may still render an older one). */
  private shown: SessionView;
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private lastFlush = 0;

  constructor(readonly sessionId: string) {
    this.view = empty(sessionId);
    this.shown = empty(sessionId);
  }

  get = (): SessionView => this.shown;

  /** Requests still waiting for an answer, with the events folded so far (not only the last flush's). */
  get pendingCount(): number {
    return this.view.pending.length;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  applySnapshot(s: SessionSnapshot): void {
    const t = s.thread;
    const catalog = readCatalog(s.catalog);
    this.view = {
      ...empty(this.sessionId),
      loaded: true,
      seq: s.seq,
      version: this.view.version + 1,
      summary: s.session,
      entries: [...t.entries],
      plan: readPlan(t.plan),
      ...planAtOf(this.sessionId, t.entries, t.planTurnId),
      ...((t.title ?? s.session.title) ? { title: t.title ?? s.session.title } : {}),
      ...((t.currentModeId ?? s.session.modeId) ? { modeId: t.currentModeId ?? s.session.modeId } : {}),
      ...((catalog.model?.currentId ?? s.session.modelId) ? { modelId: catalog.model?.currentId ?? s.session.modelId } : {}),
      catalog,
      commands: readCommands(t.availableCommands),
      context: readContext(t.context),
      state: s.session.state,
      ...(s.turnId ? { turnId: s.turnId } : {}),
      pending: [...s.pending],
      queue: [...s.queue],
      ...(s.agent ? { agent: s.agent } : {}),
      origin: s.origin,
      sessionUsage: readUsage(s.usage) ?? {},
      ...hermesOf(t.meta),
      ...(readUsage(s.turnUsage) ? { turnUsage: readUsage(s.turnUsage) } : {}),
    };
    this.changed();
  }

  /** Folds one event; events at or below the current seq were already folded and are ignored. */
  applyEvent(e: StreamEvent): void {
    const v = this.view;
    if (e.seq <= v.seq) return;
    v.seq = e.seq;
    // `entry.appended {index, text}`: the server's compact form of a message entry that only grew.
    const ev = e as unknown as { type: string; index?: unknown; text?: unknown };
    if (ev.type === 'entry.appended' && typeof ev.index === 'number' && typeof ev.text === 'string') {
      const old = v.entries[ev.index];
      // Kept as chunks (not `old.text + ev.text`): a render then reads only what is new.
      if (isObj(old) && (partsOf(old) !== undefined || typeof old.text === 'string')) v.entries[ev.index] = appendText(old, ev.text);
      v.version++;
      this.changed();
      return;
    }
    switch (e.type) {
      case 'entry.added':
      case 'entry.updated':
        v.entries[e.index] = e.entry;
        break;
      case 'plan.updated': {
        v.plan = readPlan(e.plan);
        const at = turnStartId(v.entries, e.turnId) ?? lastUserId(v.entries);
        if (v.plan && at !== undefined && at !== v.planAt) {
          v.planAt = at;
          keepPlanAt(this.sessionId, at);
        }
        break;
      }
      case 'commands.updated':
        v.commands = readCommands(e.commands);
        break;
      case 'mode.updated':
        v.modeId = e.modeId;
        break;
      case 'info.updated':
        if (e.title) v.title = e.title;
        if (e.meta !== undefined) {
          const h = hermesOf(e.meta);
          if (h.hermes) v.hermes = h.hermes;
          else delete v.hermes;
        }
        break;
      case 'context.updated':
        v.context = readContext(e.context);
        break;
      case 'catalog.updated':
        v.catalog = readCatalog(e.catalog);
        if (v.catalog.model?.currentId) v.modelId = v.catalog.model.currentId;
        if (v.catalog.mode?.currentId) v.modeId = v.catalog.mode.currentId;
        break;
      case 'choice.updated':
        if (e.modelId) v.modelId = e.modelId;
        if (e.modeId) v.modeId = e.modeId;
        break;
      case 'session.state':
        v.state = e.state;
        break;
      case 'session.closed':
        v.state = 'closed';
        break;
      case 'turn.started':
        v.turnId = e.turnId;
        v.lastStop = undefined;
        break;
      case 'turn.ended': {
        delete v.turnId;
        const u = readUsage(e.usage);
        v.turnUsage = u;
        v.sessionUsage = addUsage(v.sessionUsage, u);
        v.lastStop = { stopReason: String(e.stopReason), ...(e.error ? { error: { code: e.error.code, message: e.error.message } } : {}) };
        break;
      }
      case 'permission.asked':
        if (!v.pending.some((p) => p.requestKey === e.requestKey))
          v.pending = [
            ...v.pending,
            { requestKey: e.requestKey, toolCallId: e.toolCallId, options: e.options, subject: e.subject, seq: e.seq, ...(e.title ? { title: e.title } : {}) },
          ];
        break;
      case 'permission.decided':
      case 'permission.resolved': {
        v.pending = v.pending.filter((p) => p.requestKey !== e.requestKey);
        const prev = v.resolved.get(e.requestKey);
        const answeredBy = e.answeredBy ?? prev?.answeredBy;
        v.resolved = new Map(v.resolved).set(e.requestKey, {
          requestKey: e.requestKey,
          toolCallId: e.toolCallId,
          decidedBy: e.decidedBy,
          outcome: e.outcome,
          ...(answeredBy ? { answeredBy } : {}),
        });
        break;
      }
      case 'queue.updated':
        v.queue = [...e.queue];
        break;
      default:
        break;
    }
    v.version++;
    this.changed();
  }

  /**
   * A new object per notification so React sees the change, with its own copy of the entries
   * array (pointers only; the entries are shared and each update replaces its entry's object).
   * A view React has drawn must not change under it: a render that is not the update's own (a
   * scroll or a row's resize re-renders the thread at once, outside the update's transition)
   * would otherwise draw the entries as they are now, parsing the streamed markdown of the
   * chunks that arrived since in that synchronous task.
   */
  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = (): void => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.lastFlush = Date.now();
      this.shown = { ...this.view, entries: this.view.entries.slice() };
      for (const fn of this.listeners) fn();
    };
    // At most one render per FLUSH_MS while a turn streams (a few hundred chunks a second would
    // otherwise re-render the growing message every frame). A task of its own, not an animation
    // frame: the render and the frame's layout and paint are then two tasks, not one long one.
    const wait = Math.max(0, this.lastFlush + FLUSH_MS - Date.now());
    setTimeout(flush, wait);
  }
}

export const statusOf = (v: SessionView): string => str(v.state) ?? 'idle';

/** The id of the last user message in the thread (the start of the latest turn). */
function lastUserId(entries: unknown[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (isObj(e) && e.kind === 'user_message' && typeof e.id === 'string') return e.id;
  }
  return undefined;
}
