/**
 * One session as the UI draws it, read off the session's snapshot as the shared fold keeps it
 * (src/server/client/thread.ts), plus what only this browser saw of the stream. The same reading
 * for a fresh snapshot and for one folded forward: a reload draws what the live page drew.
 */
// The contract's types, not ../api/server.js: that module touches the DOM, and this one is unit-tested in Node.
import type {
  PendingPermission,
  QueuedPrompt,
  RecordingState,
  SessionSnapshot,
  SessionSummaryInfo,
} from '../../../src/server/contract/index.js';
import { readProvenance, type HermesProvenance } from '../../../src/providers/hermes/provenance.js';
import {
  isObj,
  num,
  readCatalog,
  readCommands,
  readContext,
  readPlan,
  type CatalogView,
  type CommandItem,
  type ContextView,
  type PlanItem,
} from './entries.js';

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
  /** What is not saved (yet): the store is out (delayed) or part of the session was lost (failed). */
  recording?: RecordingState;
}

/** What this browser saw of the stream that no snapshot holds: who answered, how the last turn stopped, where the plan was made. */
export interface Seen {
  resolved: Map<string, Resolution>;
  lastStop?: SessionView['lastStop'];
  planAt?: string;
}

export function readUsage(u: unknown): Usage | undefined {
  if (!isObj(u)) return undefined;
  const input = num(u.inputTokens);
  const output = num(u.outputTokens);
  const total =
    num(u.totalTokens) ?? (input !== undefined || output !== undefined ? (input ?? 0) + (output ?? 0) : undefined);
  if (input === undefined && output === undefined && total === undefined) return undefined;
  return {
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(total !== undefined ? { total } : {}),
  };
}

/** A snapshot of nothing yet (seq 0): events that come before the first snapshot fold into it. */
export function emptySnapshot(sessionId: string): SessionSnapshot {
  return {
    session: {
      id: sessionId,
      provider: '',
      cwd: '',
      archived: false,
      stored: false,
      live: false,
      state: 'stored',
      needsAttention: false,
    },
    seq: 0,
    thread: { entries: [], plan: null, availableCommands: [], context: {} },
    origin: 'stored',
    pending: [],
    queue: [],
  };
}

/** `read` again only when its input changed (the fold replaces what it changes): a render per chunk re-reads nothing. */
function lastOf<I, O>(read: (v: I) => O): (v: I) => O {
  let had = false;
  let input: I | undefined;
  let out: O | undefined;
  return (v) => {
    if (!had || v !== input) {
      had = true;
      input = v;
      out = read(v);
    }
    return out as O;
  };
}

/** Reads a snapshot into views; each keeps the last reading of each part, so unchanged parts are the same objects. */
export function viewReader(
  sessionId: string,
): (s: SessionSnapshot, seen: Seen, loaded: boolean, version: number) => SessionView {
  const plan = lastOf(readPlan);
  const catalogOf = lastOf(readCatalog);
  const commands = lastOf(readCommands);
  const context = lastOf(readContext);
  const usage = lastOf(readUsage);
  const turnUsage = lastOf(readUsage);
  const hermes = lastOf((meta: unknown) => readProvenance(meta));
  return (s, seen, loaded, version) => {
    const t = s.thread;
    const catalog = catalogOf(s.catalog);
    const title = t.title ?? s.session.title;
    // The catalog's current choice is the newest (a person's pick moves it, not the thread's mode).
    const modeId = catalog.mode?.currentId ?? t.currentModeId ?? s.session.modeId;
    const modelId = catalog.model?.currentId ?? s.session.modelId;
    const h = hermes(t.meta);
    const tu = turnUsage(s.turnUsage);
    return {
      sessionId,
      loaded,
      seq: s.seq,
      version,
      ...(loaded ? { summary: s.session } : {}),
      // A copy of the array (pointers only): the fold writes into its own.
      entries: t.entries.slice(),
      plan: plan(t.plan),
      ...(seen.planAt !== undefined ? { planAt: seen.planAt } : {}),
      ...(title ? { title } : {}),
      ...(modeId ? { modeId } : {}),
      ...(modelId ? { modelId } : {}),
      catalog,
      commands: commands(t.availableCommands),
      context: context(t.context),
      state: s.session.state,
      ...(s.turnId ? { turnId: s.turnId } : {}),
      pending: s.pending,
      resolved: seen.resolved,
      queue: s.queue,
      ...(s.agent ? { agent: s.agent } : {}),
      ...(loaded ? { origin: s.origin } : {}),
      ...(tu ? { turnUsage: tu } : {}),
      sessionUsage: usage(s.usage) ?? {},
      ...(seen.lastStop ? { lastStop: seen.lastStop } : {}),
      ...(h ? { hermes: h } : {}),
      ...(s.recording ? { recording: s.recording } : {}),
    };
  };
}
