/**
 * The permission bridge: an agent's `session/request_permission` → the tool call it concerns in
 * the thread (pending) → the broker (policy, then a person) → the answer's status on that call.
 */
import { findToolCall, openToolCalls } from '../thread/index.js';
import type { PermissionRequest } from '../permission/broker-types.js';
import type { PermissionOutcome } from '../permission/types.js';
import type { SessionCore } from './core.js';

export interface PermissionParams {
  toolCall?: { toolCallId?: string; [k: string]: unknown };
  options?: unknown[];
}

export async function requestPermission(
  s: SessionCore,
  params: PermissionParams,
  requestId: string | number,
  turnId: string | undefined,
): Promise<PermissionOutcome> {
  const raw = params.toolCall && typeof params.toolCall === 'object' ? params.toolCall : { toolCallId: '' };
  const announced = String(raw.toolCallId ?? '');
  const linked = s.hooks.linkPermission?.(
    { ...raw, toolCallId: announced },
    { thread: s.thread, openToolCalls: openToolCalls(s.thread) },
  );
  const toolCallId = linked ?? (announced || `permission-${String(requestId)}`);
  const known = findToolCall(s.thread, toolCallId);
  // A linked request concerns a call we already show: keep its fields, only attach the permission,
  // and the request's diff when the call has none (Hermes puts the diff only in the approval).
  const isDiff = (c: unknown) => (c as { type?: unknown } | null)?.type === 'diff';
  const diffs =
    linked && linked !== announced && Array.isArray(raw.content) && !(known?.content ?? []).some(isDiff)
      ? raw.content.filter(isDiff)
      : [];
  const toolCall =
    linked && linked !== announced
      ? { toolCallId, ...(diffs.length > 0 ? { content: [...(known?.content ?? []), ...diffs] } : {}) }
      : { ...raw, toolCallId };
  s.apply({ type: 'permission', toolCall, permission: { requestId, status: 'pending' } });
  const request: PermissionRequest = {
    requestKey: `${s.id}:${String(requestId)}`,
    sessionId: s.id,
    params,
    roots: s.roots,
  };
  if (known)
    request.known = {
      title: known.title,
      toolKind: known.toolKind,
      locations: known.locations,
      rawInput: known.rawInput,
      content: known.content,
    };
  if (turnId !== undefined) request.turnId = turnId;
  const outcome = await s.broker.request(request);
  const options = (Array.isArray(params.options) ? params.options : []) as { optionId?: string; kind?: string }[];
  const chosen = outcome.outcome === 'selected' ? options.find((o) => o.optionId === outcome.optionId) : undefined;
  const status =
    outcome.outcome === 'cancelled' ? 'cancelled' : chosen?.kind?.startsWith('allow') ? 'allowed' : 'rejected';
  s.apply({
    type: 'permission',
    toolCall: { toolCallId },
    permission: {
      requestId,
      status,
      ...(chosen?.optionId ? { optionId: chosen.optionId } : {}),
      ...(chosen?.kind ? { optionKind: chosen.kind } : {}),
    },
  });
  return outcome;
}
