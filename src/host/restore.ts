/**
 * Loading a hosted session into a process and restoring what the agent may have lost there:
 * the model the user picked (then its MCP servers again, for agents that drop them on a model
 * switch) and the mode (Hermes does not persist set_mode across restarts). Also how a load's
 * answer says the session is not there (open.ts reads it the same way).
 */
import { TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import { errorText } from '../session/errors.js';
import { switchTo } from '../session/model-mode.js';
import type { SessionBinding } from './binding.js';
import type { Generation } from './generation.js';
import type { SessionsPart } from './parts.js';

/** `{}` or nothing: with the hook `loadEmptyMeansNotFound`, a load of a session the agent does not have. */
export const isEmptyResult = (r: unknown) =>
  r === null || r === undefined || (typeof r === 'object' && Object.keys(r as object).length === 0);

/**
 * -32002, or an error that says the session is not there, for the session asked for: "not
 * found", or gemini-cli 0.61's -32603 "No previous sessions found…" (in data.details).
 */
const NOT_THERE = /not found|no (?:previous |such )?sessions?\b|unknown session/i;

export function notFound(e: unknown, sessionId: string): TalariaError | undefined {
  if (e instanceof RequestError && (e.code === -32002 || NOT_THERE.test(errorText(e)))) {
    return new TalariaError('session_not_found', `the agent has no session ${sessionId}`, { rpcCode: e.code });
  }
  return undefined;
}

export async function loadInto(
  ops: SessionsPart,
  b: SessionBinding,
  gen: Generation,
  discard: boolean,
): Promise<unknown> {
  const s = b.session;
  s.beginReplay(discard);
  let res: unknown;
  try {
    res = await gen.client.connection.request('session/load', ops.setupParams(s, s.mcpServers, { sessionId: b.id }), {
      timeoutMs: ops.slot.cfg.setupTimeoutMs,
    });
  } catch (e) {
    throw notFound(e, b.id) ?? e;
  } finally {
    s.endReplay();
  }
  if (isEmptyResult(res) && s.replayCount === 0 && ops.hooks().loadEmptyMeansNotFound === true) {
    throw new TalariaError('session_not_found', `${ops.slot.label} has no session ${b.id} (it answered {})`, {
      sessionId: b.id,
    });
  }
  s.adoptSetup(res);
  return res;
}

export async function restoreChoices(ops: SessionsPart, b: SessionBinding, gen: Generation): Promise<void> {
  const s = b.session;
  const { quirks } = ops.slot;
  const model = s.catalog.model;
  if (b.modelId && model && model.currentId !== b.modelId && model.options.some((o) => o.id === b.modelId)) {
    await switchOn(ops, b, gen, 'model', b.modelId);
    if (quirks.host.reloadAfterSetModel) await loadInto(ops, b, gen, true);
  }
  const modeId = b.modeId ?? quirks.modeFor?.(s.permissionMode);
  const mode = s.catalog.mode;
  if (modeId && mode && mode.currentId !== modeId && mode.options.some((o) => o.id === modeId))
    await switchOn(ops, b, gen, 'mode', modeId);
}

function switchOn(
  ops: SessionsPart,
  b: SessionBinding,
  gen: Generation,
  kind: 'model' | 'mode',
  id: string,
): Promise<void> {
  // Straight to the process being restored (the session's port would bind it again).
  return switchTo(b.session, kind, id, (method, params) =>
    gen.client.connection.request(method, params, { timeoutMs: ops.slot.cfg.setupTimeoutMs }),
  );
}
