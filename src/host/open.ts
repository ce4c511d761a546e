/**
 * Opening a hosted session: new, load (history replayed into the thread), resume, fork — with
 * the agent's quirks (its quirk set) around setup:
 * - MCP servers the agent cannot take (http/sse without mcpCapabilities) are withheld, visibly;
 * - a `session/new` that fails with MCP servers is retried once without them (Hermes), visibly;
 * - `session/load` answering `{}` without replay = not found;
 * - `session/resume` of an unknown id that silently created ANOTHER session (Hermes: the new id
 *   only in `_meta…acpSessionId`) = not found, and the stray session is ignored;
 * - the session's permission mode is mapped onto the agent's mode (set_mode after setup).
 */
import { TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import type { PermissionMode } from '../permission/types.js';
import { filterMcpServers } from '../providers/mcp.js';
import type { Session } from '../session/session.js';
import type { SessionBinding } from './binding.js';
import type { Generation } from './generation.js';
import { errorText } from '../session/errors.js';
import { noteAuthRequired, noteSignedIn } from './auth-mark.js';
import type { SlotSessions } from './ops.js';
import { isEmptyResult, notFound } from './restore.js';

export type OpenKind = 'new' | 'load' | 'resume' | 'fork';

export interface OpenRequest {
  kind: OpenKind;
  /** The session to load / resume / fork from. */
  sessionId?: string;
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
  permissionMode: PermissionMode;
  /** A warm-pool spare (new only): listed nowhere until claimed. */
  spare?: boolean;
}

const METHOD = { new: 'session/new', load: 'session/load', resume: 'session/resume', fork: 'session/fork' } as const;

export async function openSession(ops: SlotSessions, req: OpenRequest): Promise<Session> {
  const { slot } = ops;
  if (req.kind !== 'new' && !req.sessionId) throw new TalariaError('invalid_argument', `${req.kind} needs a sessionId`);
  if ((req.kind === 'load' || req.kind === 'resume') && slot.bindings.has(req.sessionId!)) {
    throw new TalariaError('invalid_state', `session ${req.sessionId} is already open`);
  }
  const gen = await slot.ensure();
  // Held for the whole setup, so the process is neither reaped nor replaced half-way.
  slot.beginWork(gen);
  try {
    return await setup(ops, req, gen);
  } finally {
    slot.endWork(gen);
  }
}

async function setup(ops: SlotSessions, req: OpenRequest, gen: Generation): Promise<Session> {
  const { slot } = ops;
  const { quirks } = slot;
  const caps = gen.client.capabilities;
  if (req.kind === 'load' && !caps.supportsLoad)
    throw new TalariaError('unsupported', `${slot.label} cannot load sessions`);
  if ((req.kind === 'resume' || req.kind === 'fork') && !caps.supportsSession(req.kind))
    throw new TalariaError('unsupported', `${slot.label} cannot ${req.kind} sessions`);

  const filtered = filterMcpServers(req.mcpServers ?? [], caps, slot.label);
  const notices: { code: string; text: string }[] = filtered.withheld.map((w) => ({
    code: 'mcp_server_withheld',
    text: `MCP server "${w.name}" (${w.type}) was not sent: ${w.reason}.`,
  }));
  let servers = filtered.servers;
  const view = { cwd: req.cwd, additionalDirectories: req.additionalDirectories ?? [] };
  const timeoutMs = slot.cfg.setupTimeoutMs;
  const request = (method: string, params: unknown) => ops.callOn(gen, method, params, { timeoutMs });
  const describe = (e: unknown) => {
    const d = quirks.host.describeSetupError?.(e, slot.key.profile ? { profile: slot.key.profile } : {}) ?? e;
    noteAuthRequired(slot, d, METHOD[req.kind], caps.authMethods);
    return d;
  };

  let b: SessionBinding;
  let res: unknown;
  // The binding for the session id the agent gave (new, fork) or was asked for (load, resume).
  const bind = (id: string) =>
    ops.create({
      id,
      cwd: req.cwd,
      ...(req.additionalDirectories ? { additionalDirectories: req.additionalDirectories } : {}),
      mcpServers: servers,
      permissionMode: req.permissionMode,
      ...(req.spare ? { spare: true } : {}),
    });
  if (req.kind === 'new' || req.kind === 'fork') {
    const extra = req.kind === 'fork' ? { sessionId: req.sessionId } : {};
    try {
      res = await request(METHOD[req.kind], ops.setupParams(view, servers, extra));
    } catch (e) {
      if (!(req.kind === 'new' && servers.length && quirks.host.retryNewWithoutMcp && e instanceof RequestError))
        throw describe(e);
      try {
        res = await request('session/new', ops.setupParams(view, [], extra));
      } catch (e2) {
        throw describe(e2);
      }
      notices.push({
        code: 'mcp_servers_dropped',
        text: `${slot.label} could not start the session with its MCP servers (${errorText(e)}); it was started without ${servers.map((s) => `"${(s as { name?: string }).name}"`).join(', ')}.`,
      });
      servers = [];
    }
    const id = (res as { sessionId?: unknown } | null)?.sessionId;
    if (typeof id !== 'string' || id === '') {
      if (req.kind === 'fork')
        throw new TalariaError('session_not_found', `${slot.label} could not fork session ${req.sessionId}`, {
          response: res,
        });
      throw new TalariaError('agent_error', 'session/new answered without a sessionId', { response: res });
    }
    b = bind(id);
    ops.attach(b, gen);
    // The agent opened a session: whatever sign-in it asked for before is done.
    noteSignedIn(slot);
  } else {
    const id = req.sessionId!;
    b = bind(id);
    // Registered first: the agent replays the history before it answers.
    ops.attach(b, gen);
    b.session.beginReplay(false);
    try {
      res = await request(METHOD[req.kind], ops.setupParams(view, servers, { sessionId: id }));
    } catch (e) {
      ops.discard(b);
      throw notFound(e, id) ?? describe(e);
    } finally {
      b.session.endReplay();
    }
    if (
      req.kind === 'load' &&
      isEmptyResult(res) &&
      b.session.replayCount === 0 &&
      ops.hooks().loadEmptyMeansNotFound === true
    ) {
      ops.discard(b);
      throw new TalariaError('session_not_found', `${slot.label} has no session ${id} (it answered {})`, {
        sessionId: id,
      });
    }
    const stray = req.kind === 'resume' ? quirks.host.strayResumeId?.(res, id) : undefined;
    if (stray) {
      // The agent made a new, empty session instead: never route it, never show it.
      gen.client.ignore(stray);
      ops.discard(b);
      throw new TalariaError(
        'session_not_found',
        `${slot.label} has no session ${id} (it created another one, ${stray}, which is ignored)`,
        { sessionId: id, strayId: stray },
      );
    }
  }
  try {
    b.session.adoptSetup(res);
    for (const n of notices) b.session.notice('warning', n.code, n.text);
    await ops.restoreChoices(b, gen);
  } catch (e) {
    ops.discard(b);
    throw e;
  }
  return b.session;
}
