/**
 * Per-process state: the shared context and one Runtime per live session (Hermes'
 * SessionState + AIAgent). Runtime-only fields (mode, MCP servers, cumulative usage,
 * context size, the live history) are NOT persisted, exactly the facts clients trip over.
 */
import type { HermesConfig, Settings } from './config.js';
import { messagesTokens } from './history.js';
import type { Peer } from './rpc.js';
import type { HistoryMessage, SessionRecord, Store } from './state.js';

export interface McpServerSpec {
  name: string;
  command?: string;
  args?: unknown;
  env?: unknown;
}

export interface Runtime {
  /** The id on the wire: stays the same when compression rotates the internal head (rec). */
  acpId: string;
  /** The live head row; a rotation swaps it for the continuation (rotate.ts). */
  rec: SessionRecord;
  /** The head before this turn's rotation, if it rotated: the provenance update names it. */
  rotatedFrom: string | null;
  /** The agent's in-memory history: like rec.history, but failed user messages merged. */
  history: HistoryMessage[];
  mode: string;
  mcp: Map<string, McpServerSpec>;
  /** Cumulative successful model calls of this agent instance; reset by set_model and restart. */
  usage: { input: number; output: number };
  contextSize: number;
  /** The agent built its system prompt (first model call): `used` estimates grow by it. */
  promptBuilt: boolean;
  running: boolean;
  cancelled: boolean;
  /** Text of the running prompt; copied to `interrupted` by a cancel. */
  currentPrompt: string;
  /** A cancelled prompt's text: the next idle /steer replays it (until a /steer consumes it). */
  interrupted: string;
  /** A /steer that arrived mid-turn: lands in the next tool result, else is lost. */
  pendingSteer: string | null;
  queue: string[];
  /** Wakes cancellable pauses when session/cancel arrives. */
  wake: Set<() => void>;
  allowSession: Set<string>;
}

export interface Ctx {
  peer: Peer;
  store: Store;
  settings: Settings;
  cfg: HermesConfig;
  runtimes: Map<string, Runtime>;
  counters: { perm: number; edit: number };
  allowAlways: Set<string>;
  /** Cold-start bookkeeping: agents built and prompts run by this process. */
  started: { agents: number; prompts: number };
  /** The learned context limit read from context_length_cache.yaml at start (aux compression model). */
  auxContext: number | null;
  log: (line: string) => void;
}

export const CONTEXT_SIZE = 131_072;
export const TOKENS_PER_CALL = { input: 1200, output: 34 };

export function newRuntime(rec: SessionRecord): Runtime {
  return {
    acpId: rec.id,
    rec,
    rotatedFrom: null,
    history: structuredClone(rec.history),
    mode: 'default',
    mcp: new Map(),
    usage: { input: 0, output: 0 },
    contextSize: CONTEXT_SIZE,
    promptBuilt: false,
    running: false,
    cancelled: false,
    currentPrompt: '',
    interrupted: '',
    pendingSteer: null,
    queue: [],
    wake: new Set(),
    allowSession: new Set(),
  };
}

/**
 * acp_adapter/provenance.py build_session_provenance: derived from the rows' parent and
 * end_reason (root = walk of parents; depth counts parents ended by compression; a
 * continuation is a row whose immediate parent ended by compression). `previous` is the head
 * before the turn; a different one flags the rotation (reason/creatorKind 'compression').
 */
export function provenance(store: Store, acpId: string, currentId: string, previous?: string): Record<string, unknown> {
  const row = store.get(currentId);
  const parentId = row?.parentId ?? null;
  let root = currentId;
  let depth = 0;
  const seen = new Set([currentId]);
  for (let cursor = parentId; cursor && !seen.has(cursor);) {
    seen.add(cursor);
    const p = store.get(cursor);
    if (!p) break;
    root = cursor;
    if (p.endReason === 'compression') depth++;
    cursor = p.parentId;
  }
  const continuation = parentId !== null && store.get(parentId)?.endReason === 'compression';
  const out: Record<string, unknown> = {
    acpSessionId: acpId,
    currentHermesSessionId: currentId,
    rootHermesSessionId: root,
    parentHermesSessionId: parentId,
    sessionKind: continuation ? 'continuation' : 'root',
    compressionDepth: depth,
  };
  if (previous) out.previousHermesSessionId = previous;
  if (previous && previous !== currentId) Object.assign(out, { reason: 'compression', creatorKind: 'compression' });
  return out;
}

export const hermesMeta = (
  ctx: Pick<Ctx, 'store'>,
  rt: Pick<Runtime, 'acpId' | 'rec'>,
  previous?: string,
): Record<string, unknown> => ({
  hermes: { sessionProvenance: provenance(ctx.store, rt.acpId, rt.rec.id, previous) },
});

export function sendUpdate(ctx: Ctx, sessionId: string, update: Record<string, unknown>): void {
  ctx.peer.notify('session/update', { sessionId, update });
}

export function textChunk(kind: string, text: string, messageId?: string): Record<string, unknown> {
  const u: Record<string, unknown> = { content: { text, type: 'text' }, sessionUpdate: kind };
  if (messageId) u.messageId = messageId;
  return u;
}

/** The MCP tools each server adds (FastMCP with resources and prompts: 2 tools + 4 utilities). */
export const MCP_TOOLS = ['add', 'echo', 'get_prompt', 'list_prompts', 'list_resources', 'read_resource'];

/**
 * estimate_request_tokens_rough: tool schemas (8754 with the 15 built-in tools, ~43 per MCP
 * tool), the system prompt once built (~1429), then the messages (chars / 4).
 */
export function contextUsed(rt: Runtime): number {
  return 8754 + 43 * MCP_TOOLS.length * rt.mcp.size + (rt.promptBuilt ? 1429 : 0) + messagesTokens(rt.history);
}

export function sendUsageUpdate(ctx: Ctx, rt: Runtime): void {
  sendUpdate(ctx, rt.acpId, { size: rt.contextSize, used: contextUsed(rt), sessionUpdate: 'usage_update' });
}

/** `touch`: the session was active (a turn or a history edit), which orders session/list. */
export function persist(ctx: Ctx, rt: Runtime, touch = true): void {
  if (touch) rt.rec.lastActive = Date.now();
  ctx.store.put(rt.rec);
}

/** A pause that session/cancel cuts short. */
export function pause(rt: Runtime, ms: number): Promise<void> {
  if (rt.cancelled) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      rt.wake.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    rt.wake.add(done);
  });
}

/** A plain delay (cold-start costs): not cut short by anything. */
export const sleep = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
