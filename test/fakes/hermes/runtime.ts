/**
 * Per-process state: the shared context and one Runtime per live session (Hermes'
 * SessionState + AIAgent). Runtime-only fields (mode, MCP servers, cumulative usage,
 * context size) are NOT persisted, exactly the facts clients trip over.
 */
import type { HermesConfig, Settings } from './config.js';
import type { Peer } from './rpc.js';
import type { SessionRecord, Store } from './state.js';

export interface McpServerSpec {
  name: string;
  command?: string;
  args?: unknown;
  env?: unknown;
}

export interface Runtime {
  rec: SessionRecord;
  mode: string;
  mcp: Map<string, McpServerSpec>;
  /** Cumulative for this agent instance; reset by set_model and by a restart. */
  usage: { input: number; output: number };
  contextSize: number;
  running: boolean;
  cancelled: boolean;
  queue: unknown[][];
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
  log: (line: string) => void;
}

export const CONTEXT_SIZE = 131_072;
export const TOKENS_PER_CALL = { input: 1200, output: 34 };

export function newRuntime(rec: SessionRecord): Runtime {
  return {
    rec,
    mode: 'default',
    mcp: new Map(),
    usage: { input: 0, output: 0 },
    contextSize: CONTEXT_SIZE,
    running: false,
    cancelled: false,
    queue: [],
    wake: new Set(),
    allowSession: new Set(),
  };
}

export function provenance(id: string): Record<string, unknown> {
  return {
    acpSessionId: id,
    currentHermesSessionId: id,
    rootHermesSessionId: id,
    parentHermesSessionId: null,
    sessionKind: 'root',
    compressionDepth: 0,
  };
}

export const hermesMeta = (id: string): Record<string, unknown> => ({ hermes: { sessionProvenance: provenance(id) } });

export function sendUpdate(ctx: Ctx, sessionId: string, update: Record<string, unknown>): void {
  ctx.peer.notify('session/update', { sessionId, update });
}

export function textChunk(kind: string, text: string, messageId?: string): Record<string, unknown> {
  const u: Record<string, unknown> = { content: { text, type: 'text' }, sessionUpdate: kind };
  if (messageId) u.messageId = messageId;
  return u;
}

/** Rough request-size estimate, like Hermes' estimate_request_tokens_rough. */
export function contextUsed(rt: Runtime): number {
  const chars = rt.rec.history.reduce((n, m) => n + m.content.length, 0);
  return 8754 + rt.rec.history.length * 180 + Math.ceil(chars / 4);
}

export function sendUsageUpdate(ctx: Ctx, rt: Runtime): void {
  sendUpdate(ctx, rt.rec.id, { size: rt.contextSize, used: contextUsed(rt), sessionUpdate: 'usage_update' });
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
