/**
 * What one turn produced, for `run --json` and the human summary: the assistant text and the
 * tool calls of that turn (entries carry their turnId), plus the stop reason and usage.
 */
import type { Thread, ToolCallEntry } from '../thread/types.js';
import type { TurnResult } from '../session/turn.js';
import { NDJSON_VERSION } from './ndjson.js';

export interface ToolCallSummary {
  toolCallId: string;
  title: string;
  kind: string | null;
  status: string;
  locations: string[];
  permission: string | null;
}

export interface RunJson {
  v: number;
  /** Talaria's id (what --session takes). */
  sessionId: string | null;
  /** The agent's own ACP session id. */
  agentSessionId?: string;
  turnId: string | null;
  stopReason: string;
  exitCode: number;
  usage: unknown;
  error?: { code: string; message: string; data?: unknown };
  durationMs: number | null;
  text: string;
  toolCalls: ToolCallSummary[];
}

export function turnText(thread: Thread, turnId: string): string {
  return thread.entries
    .filter((e) => e.turnId === turnId && e.kind === 'assistant_message')
    .map((e) => (e as { text: string }).text)
    .join('');
}

export function turnToolCalls(thread: Thread, turnId: string): ToolCallSummary[] {
  return thread.entries
    .filter((e): e is ToolCallEntry => e.turnId === turnId && e.kind === 'tool_call')
    .map((e) => ({
      toolCallId: e.toolCallId,
      title: e.title,
      kind: e.toolKind ?? null,
      status: e.status,
      locations: (e.locations ?? []).map((l) => (l.line != null ? `${l.path}:${l.line}` : l.path)),
      permission: e.permission?.status ?? null,
    }));
}

export function runJson(
  ids: { sessionId: string; agentSessionId: string },
  thread: Thread,
  r: TurnResult,
  exitCode: number,
): RunJson {
  const out: RunJson = {
    v: NDJSON_VERSION,
    sessionId: ids.sessionId,
    agentSessionId: ids.agentSessionId,
    turnId: r.turnId,
    stopReason: r.stopReason,
    exitCode,
    usage: r.usage ?? null,
    durationMs: r.durationMs,
    text: turnText(thread, r.turnId),
    toolCalls: turnToolCalls(thread, r.turnId),
  };
  if (r.error) out.error = r.error;
  return out;
}

/** The JSON printed when no turn could run (agent not ready). */
export function failureJson(
  sessionId: string | null,
  exitCode: number,
  error: { code: string; message: string },
): RunJson {
  return {
    v: NDJSON_VERSION,
    sessionId,
    turnId: null,
    stopReason: 'error',
    exitCode,
    usage: null,
    error,
    durationMs: null,
    text: '',
    toolCalls: [],
  };
}
