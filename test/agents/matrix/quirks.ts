/**
 * Frame-level detectors of the wire quirks in the spec. The matrix marks a cell "quirk absorbed"
 * when its checks pass and one of these fired in that scenario's frames; the fixture trimmer uses
 * them to keep only the frames that show a quirk.
 */
import type { Frame, RawMessage } from '../../../src/protocol/types.js';

export type QuirkName =
  | 'uuid-request-ids'
  | 'update-before-session-new'
  | 'permission-unannounced-tool'
  | 'permission-before-tool-call'
  | 'duplicate-tool-call'
  | 'rawinput-empty-refined'
  | 'meta-only-update'
  | 'empty-opening-chunk'
  | 'non-standard-method'
  | 'extra-result-fields'
  | 'config-options-only'
  | 'modes-models-session'
  | 'late-status-after-cancel'
  | 'unsettled-after-cancel'
  | 'error-detail-in-data'
  | 'http-status-as-code'
  | 'session-info-meta-only'
  | 'permission-status-mismatch'
  /** Set by the runner, not found in frames: a silent hang the stall watchdog ended. */
  | 'silent-hang-caught';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STANDARD_CLIENT_METHODS = new Set([
  'session/request_permission',
  'session/update',
  'fs/read_text_file',
  'fs/write_text_file',
  'terminal/create',
  'terminal/output',
  'terminal/wait_for_exit',
  'terminal/kill',
  'terminal/release',
  'elicitation/create',
  'elicitation/complete',
]);

type Upd = {
  sessionUpdate?: string;
  toolCallId?: string;
  status?: string;
  rawInput?: unknown;
  content?: { type?: string; text?: string };
  [k: string]: unknown;
};

function update(m: RawMessage): Upd | undefined {
  if (m.method !== 'session/update') return undefined;
  return (m.params as { update?: Upd } | undefined)?.update;
}

function isEmptyObj(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** Each quirk found, with the indexes (into `frames`) of the frames that show it. */
export function detectQuirks(frames: readonly Frame[]): Map<QuirkName, number[]> {
  const found = new Map<QuirkName, number[]>();
  const hit = (q: QuirkName, ...ix: number[]): void => {
    const l = found.get(q) ?? [];
    for (const i of ix) if (!l.includes(i)) l.push(i);
    found.set(q, l);
  };
  const sent = new Map<unknown, { method: string; index: number }>();
  const toolCalls = new Map<string, number>();
  const emptyRaw = new Map<string, number>();
  const permissionFirst = new Map<string, number>();
  const sessionsSeen = new Map<string, number>();
  let cancelAt = -1;
  const openAtCancel = new Set<string>();
  const status = new Map<string, string>();

  frames.forEach((f, i) => {
    const m = f.msg;
    if (f.dir === 'client->agent') {
      if (m.method !== undefined && m.id !== undefined) sent.set(m.id, { method: m.method, index: i });
      if (m.method === 'session/cancel') {
        cancelAt = i;
        for (const [id, s] of status) if (s === 'pending' || s === 'in_progress') openAtCancel.add(id);
      }
      // Our -32601 answer to a method we do not know.
      if (m.method === undefined && m.error?.code === -32601) hit('non-standard-method', i);
      return;
    }
    // agent -> client
    if (m.method !== undefined && m.id !== undefined) {
      if (typeof m.id === 'string' && UUID.test(m.id)) hit('uuid-request-ids', i);
      if (!STANDARD_CLIENT_METHODS.has(m.method) && !m.method.startsWith('_')) hit('non-standard-method', i);
      if (m.method === 'session/request_permission') {
        const tc = (m.params as { toolCall?: Upd } | undefined)?.toolCall;
        const id = tc?.toolCallId;
        if (id && !toolCalls.has(id)) {
          permissionFirst.set(id, i);
          hit('permission-unannounced-tool', i);
        }
        if (id && tc?.status && status.get(id) && status.get(id) !== tc.status)
          hit('permission-status-mismatch', toolCalls.get(id)!, i);
      }
    }
    if (m.method === undefined && m.id !== undefined) {
      const req = sent.get(m.id);
      const r = m.result as Record<string, unknown> | undefined;
      if (req?.method === 'session/new' && r) {
        const sid = typeof r.sessionId === 'string' ? r.sessionId : '';
        if (sessionsSeen.has(sid)) hit('update-before-session-new', sessionsSeen.get(sid)!, i);
        if (r.configOptions && !r.modes && !r.models) hit('config-options-only', i);
        if (r.modes || r.models) hit('modes-models-session', i);
      }
      if (req?.method === 'session/prompt') {
        if (r && Object.keys(r).some((k) => k !== 'stopReason')) hit('extra-result-fields', i);
        const e = m.error;
        if (e) {
          const d = e.data as Record<string, unknown> | undefined;
          if (d && (d.message || d.details || d.service || d.errorName)) hit('error-detail-in-data', i);
          if (e.code >= 400 && e.code < 600) hit('http-status-as-code', i);
        }
        if (cancelAt >= 0)
          for (const id of openAtCancel)
            if (status.get(id) === 'pending' || status.get(id) === 'in_progress') hit('unsettled-after-cancel', i);
      }
    }
    if (m.method === 'session/update') {
      const sid = (m.params as { sessionId?: string } | undefined)?.sessionId;
      if (sid && !sessionsSeen.has(sid)) sessionsSeen.set(sid, i);
    }
    const u = update(m);
    if (!u) return;
    const id = u.toolCallId;
    if (u.sessionUpdate === 'tool_call' && id) {
      if (toolCalls.has(id)) hit('duplicate-tool-call', toolCalls.get(id)!, i);
      else toolCalls.set(id, i);
      if (permissionFirst.has(id)) {
        hit('permission-before-tool-call', permissionFirst.get(id)!, i);
      }
      if (isEmptyObj(u.rawInput)) emptyRaw.set(id, i);
    }
    if ((u.sessionUpdate === 'tool_call_update' || u.sessionUpdate === 'tool_call') && id) {
      if (u.sessionUpdate === 'tool_call_update' && !toolCalls.has(id)) toolCalls.set(id, i);
      if (emptyRaw.has(id) && u.rawInput !== undefined && !isEmptyObj(u.rawInput))
        hit('rawinput-empty-refined', emptyRaw.get(id)!, i);
      const keys = Object.keys(u).filter((k) => k !== 'sessionUpdate' && k !== 'toolCallId');
      if (u.sessionUpdate === 'tool_call_update' && keys.length === 1 && keys[0] === '_meta')
        hit('meta-only-update', i);
      if (typeof u.status === 'string') {
        if (cancelAt >= 0 && openAtCancel.has(id) && (u.status === 'completed' || u.status === 'failed'))
          hit('late-status-after-cancel', i);
        status.set(id, u.status);
      }
    }
    if (u.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text' && u.content.text === '')
      hit('empty-opening-chunk', i);
    if (u.sessionUpdate === 'session_info_update') {
      const keys = Object.keys(u).filter((k) => k !== 'sessionUpdate');
      if (keys.length === 1 && keys[0] === '_meta') hit('session-info-meta-only', i);
    }
  });
  return found;
}
