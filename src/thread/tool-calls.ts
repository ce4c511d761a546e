import type { Entry, PermissionState, Thread, ThreadChange, ToolCallEntry, ToolStatus } from './types.js';
import {
  isOpenCall,
  isTerminal,
  isToolStatus,
  nextEntryId,
  pushEntry,
  replaceEntry,
  stateOf,
  type ThreadState,
} from './state.js';

/**
 * Tool-call rules.
 * - Upsert by toolCallId: `tool_call`, `tool_call_update` and a permission's toolCall all create the
 *   entry when the id is new (updates for unknown ids happen: gemini, kilo, Hermes' synthetic ids)
 *   and update it otherwise (a second `tool_call` for a known id is an update: older Claude adapters).
 * - Present fields replace stored ones; absent or null ones are kept (`_meta`-only updates touch `_meta` only).
 * - The title never degrades: an empty title, or one that is just a tool kind, never replaces a real one.
 * - Status never goes back from terminal to open (a late `in_progress` after the turn settled the call
 *   is ignored), but a late terminal status is applied and recorded as `settledBy: 'agent'`.
 * - A permission never changes the status of a known call (codex announces `in_progress`, then asks
 *   with `pending`): the permission state says it waits.
 */
const TOOL_KINDS: ReadonlySet<string> = new Set([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
]);
/** Title of a call first seen without one. */
export const FALLBACK_TITLE = 'tool call';

function isWeakTitle(title: string, kinds: readonly (string | undefined)[]): boolean {
  const t = title.trim();
  if (t === '' || t === FALLBACK_TITLE) return true;
  const lower = t.toLowerCase();
  return TOOL_KINDS.has(lower) || kinds.some((k) => k !== undefined && k.toLowerCase() === lower);
}

function asArray<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [v as T];
}

export type UpsertSource = 'tool_call' | 'tool_call_update' | 'permission';

/** Creates or updates the call `fields.toolCallId` (a non-empty string, checked by the caller). */
export function upsertToolCall(
  thread: Thread,
  st: ThreadState,
  fields: Record<string, unknown>,
  source: UpsertSource,
  changes: ThreadChange[],
  permission?: PermissionState,
): number {
  const toolCallId = fields.toolCallId as string;
  const kind = typeof fields.kind === 'string' ? fields.kind : undefined;
  const title = typeof fields.title === 'string' ? fields.title : undefined;
  const status = isToolStatus(fields.status) ? fields.status : undefined;
  const existing = st.toolCalls.get(toolCallId);

  if (existing === undefined) {
    const entry: ToolCallEntry = {
      id: nextEntryId(st),
      kind: 'tool_call',
      toolCallId,
      title: title !== undefined && title.trim() !== '' ? title : (kind ?? FALLBACK_TITLE),
      status: status ?? 'pending', // Hermes sends no status on tool_call
      content: fields.content == null ? [] : asArray(fields.content),
      locations: fields.locations == null ? [] : asArray(fields.locations),
    };
    if (st.turnId !== undefined) entry.turnId = st.turnId;
    if (kind !== undefined) entry.toolKind = kind;
    if (fields.rawInput !== undefined) entry.rawInput = fields.rawInput;
    if (fields.rawOutput !== undefined) entry.rawOutput = fields.rawOutput;
    if (fields._meta != null) entry._meta = fields._meta;
    if (st.now) entry.startedAt = st.now();
    if (isTerminal(entry.status)) {
      entry.settledBy = 'agent';
      if (entry.startedAt !== undefined) entry.endedAt = entry.startedAt;
    }
    if (permission) entry.permission = { ...permission };
    const index = pushEntry(thread, st, entry, changes);
    st.toolCalls.set(toolCallId, index);
    if (isOpenCall(entry)) st.open.add(index);
    return index;
  }

  const old = thread.entries[existing] as ToolCallEntry;
  const next: ToolCallEntry = { ...old };
  if (title !== undefined && !(isWeakTitle(title, [kind, old.toolKind]) && !isWeakTitle(old.title, [old.toolKind]))) {
    if (title.trim() !== '') next.title = title;
  }
  if (kind !== undefined) next.toolKind = kind;
  if (status !== undefined && source !== 'permission' && !(isTerminal(old.status) && !isTerminal(status))) {
    next.status = status;
    if (isTerminal(status)) {
      next.settledBy = 'agent';
      if (st.now && !isTerminal(old.status)) next.endedAt = st.now();
    }
  }
  if (fields.content != null) next.content = asArray(fields.content);
  if (fields.locations != null) next.locations = asArray(fields.locations);
  if (fields.rawInput !== undefined) next.rawInput = fields.rawInput;
  if (fields.rawOutput !== undefined) next.rawOutput = fields.rawOutput;
  if (fields._meta != null) next._meta = fields._meta;
  if (permission) next.permission = { ...permission };
  replaceEntry(thread, existing, next, changes);
  syncOpen(st, existing, next);
  return existing;
}

function syncOpen(st: ThreadState, index: number, e: ToolCallEntry): void {
  if (isOpenCall(e)) st.open.add(index);
  else st.open.delete(index);
}

/**
 * Turn end: every still-open call of that turn is settled. The turn ending proves the tools
 * finished (Hermes never closes read/write calls). A call whose permission was rejected did not
 * run, so it ends `failed` (or `cancelled` if the permission was cancelled) rather than `completed`.
 * A permission still pending is marked cancelled: nobody can answer it once the turn is over.
 */
export function settleTurn(
  thread: Thread,
  st: ThreadState,
  turnId: string,
  outcome: 'completed' | 'cancelled' | 'failed',
  changes: ThreadChange[],
): void {
  for (const index of st.open) {
    const old = thread.entries[index];
    if (old === undefined || old.kind !== 'tool_call' || old.turnId !== turnId) continue;
    const next: ToolCallEntry = { ...old };
    if (!isTerminal(old.status)) {
      next.status = settledStatus(outcome, old.permission?.status);
      next.settledBy = outcome === 'cancelled' ? 'cancel' : 'turn_end';
      if (st.now) next.endedAt = st.now();
    }
    if (old.permission?.status === 'pending') next.permission = { ...old.permission, status: 'cancelled' };
    replaceEntry(thread, index, next, changes);
    syncOpen(st, index, next);
  }
}

function settledStatus(
  outcome: 'completed' | 'cancelled' | 'failed',
  permission: PermissionState['status'] | undefined,
): ToolStatus {
  if (outcome !== 'completed') return outcome;
  if (permission === 'rejected') return 'failed';
  if (permission === 'cancelled' || permission === 'pending') return 'cancelled';
  return 'completed';
}

/**
 * A replay of the agent's history cannot know how Talaria settled a call: one open when the user
 * cancelled is `cancelled` in Talaria's thread, while the agent recorded its own word on the kill
 * (the demo agent: failed; opencode: completed). Calls that `stored` (the thread as Talaria
 * recorded it) holds as cancelled stay so in `thread` where the agent's ids match (Hermes' replay
 * ids never match its live ones: nothing to carry there).
 */
export function keepCancelled(thread: Thread, stored: readonly Entry[], changes: ThreadChange[] = []): ThreadChange[] {
  const st = stateOf(thread);
  for (const e of stored) {
    if (e.kind !== 'tool_call' || e.status !== 'cancelled') continue;
    const index = st.toolCalls.get(e.toolCallId);
    const old = index === undefined ? undefined : thread.entries[index];
    if (index === undefined || old?.kind !== 'tool_call' || old.status === 'cancelled') continue;
    const next: ToolCallEntry = { ...old, status: 'cancelled', settledBy: e.settledBy ?? 'cancel' };
    replaceEntry(thread, index, next, changes);
    syncOpen(st, index, next);
  }
  return changes;
}
