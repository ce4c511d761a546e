/**
 * Replays a recorded wire log (fixtures, `talaria run --wire-log`, the store's logs) through the
 * real Session: the same reducer, state machine, turns, queue, catalog and permission broker a
 * live connection drives. So a replay emits the events a live run emitted — same names, same
 * order, same payloads — except timing: `at` is the recorded `t_ms`, durations are recorded ones.
 *
 * Client requests in the log become the Session calls that would have sent them (`session/prompt`
 * → `prompt()`, `session/cancel` → `cancel()`, `set_model` → `setModel()`, …); the recorded agent
 * frames answer them through a replay port. Permission requests go through a real broker with
 * the given policy: what the policy decides is decided the same way as live; what it asks is
 * answered with the recorded answer (decidedBy `user`). A log that stops while requests are
 * still open ends like a dead agent (`agent_crashed`), as it did live.
 */
import { createSessionBroker } from './broker-wiring.js';
import { ConnectionClosedError, TalariaError } from '../protocol/errors.js';
import { RequestError, withMethod } from '../protocol/wire-error.js';
import { parseWireLog } from '../protocol/wire-log.js';
import { silentLogger, type Logger, type RawMessage, type WireLogLine } from '../protocol/types.js';
import type { PermissionMode, PermissionOutcome, PermissionRule } from '../permission/types.js';
import type { ContentBlock } from '../thread/types.js';
import { applyCurrentMode, applyCurrentModel } from './catalog.js';
import type { SessionEvent } from './events.js';
import type { SessionHooks } from './hooks.js';
import { describeError } from './errors.js';
import { Session, type SessionPort } from './session.js';
import type { TurnResult } from './turn.js';
import { recordOrEmpty } from '../os/record.js';

export interface ReplayOptions {
  hooks?: SessionHooks;
  /**
   * Without `hooks`: the hooks for the agent the log's initialize answer names (the quirk catalog's,
   * passed in by the caller: this layer does not know agents), as a live session of it gets them.
   */
  hooksForAgent?: (agentInfo: { name?: unknown; version?: unknown }) => SessionHooks | undefined;
  /** The policy the live client ran with (default: ask, so every ask takes the recorded answer). */
  permission?: { mode?: PermissionMode; rules?: PermissionRule[] };
  /** Every event of every session, synchronously, in order (serialize here: entries are live objects). */
  onEvent?: (e: SessionEvent) => void;
  logger?: Logger;
}

/** Something the replay could not reproduce exactly (bad line, failed setup, a policy that disagrees). */
export interface ReplayNote {
  /** 1-based index into the lines (0: end of log). */
  line: number;
  code: string;
  message: string;
}

export interface ReplayResult {
  /** Sessions in the order the log opened them. */
  sessions: Session[];
  /** Turn results in the order the turns ended. */
  turns: TurnResult[];
  notes: ReplayNote[];
  /** `t_ms` of the last line: where the recording ends on its own clock. */
  endMs: number;
  /** `agentInfo` from the recorded initialize response, when present. */
  agentInfo?: { name?: string; version?: string; title?: string; [k: string]: unknown };
}

type Obj = Record<string, unknown>;
type Update = { sessionUpdate: string; [k: string]: unknown };

interface Deferred {
  method: string;
  promise: Promise<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

function deferred(method: string): Deferred {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<unknown>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // a Session method may never claim it; never an unhandled rejection
  return { method, promise, resolve, reject };
}

interface ClientReq {
  method: string;
  params: Obj;
  line: number;
  d?: Deferred;
  /** session/load|resume of a session that was already open (a reload: its replay is discarded). */
  existed?: boolean;
  /** Applied when the agent accepts a switch the Session could not plan itself (foreign logs). */
  fallback?: () => void;
}

interface AgentReq {
  sessionId: string;
  key: string;
  outcome?: PermissionOutcome;
  done: Promise<unknown>;
}

/** Lets the Session's async steps (turn end, permission status) run before the next frame. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Parses `text` (bad lines become notes) and replays it. */
export function replayWireLogText(text: string, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const bad: ReplayNote[] = [];
  const lines = parseWireLog(text, (e) => bad.push({ line: e.line, code: 'bad_line', message: e.error }));
  return replayWireLog(lines, opts).then((r) => ({ ...r, notes: [...bad, ...r.notes] }));
}

export async function replayWireLog(lines: readonly WireLogLine[], opts: ReplayOptions = {}): Promise<ReplayResult> {
  const logger = opts.logger ?? silentLogger;
  let clock = lines[0]?.t_ms ?? 0;
  const now = () => clock;
  const sessions = new Map<string, Session>();
  const order: Session[] = [];
  const fifo = new Map<string, Deferred[]>();
  const early = new Map<string, Update[]>();
  const clientReqs = new Map<unknown, ClientReq>();
  const agentReqs = new Map<unknown, AgentReq>();
  const turns: TurnResult[] = [];
  const running: Promise<unknown>[] = [];
  const notes: ReplayNote[] = [];
  const result: ReplayResult = { sessions: order, turns, notes, endMs: lines[lines.length - 1]?.t_ms ?? 0 };
  let caps = { image: false, audio: false, embeddedContext: false };
  let lineNo = 0;
  const note = (code: string, message: string) => notes.push({ line: lineNo, code, message });

  // Wired exactly as AcpClient wires its broker, so permission events match a live run.
  const broker = createSessionBroker({
    lookup: (sid) => sessions.get(sid),
    fallback: opts.permission ?? {},
    timeoutMs: 0, // a replay never waits on a clock
    resolvePaths: false, // the recorded paths are not on this machine: judge them by name
    now,
    logger,
  });

  const port = (sid: string): SessionPort => ({
    request<T>(method: string): Promise<T> {
      const queue = fifo.get(sid) ?? [];
      const i = queue.findIndex((d) => d.method === method);
      if (i < 0)
        return Promise.reject(new TalariaError('unsupported', `replay: the log has no ${method} request here`));
      return queue.splice(i, 1)[0]!.promise as Promise<T>;
    },
    notify: () => Promise.resolve(),
    get promptCaps() {
      return caps;
    },
  });

  let agentHooks: SessionHooks | undefined;
  const hooksNow = () => opts.hooks ?? agentHooks;
  const register = (sid: string, params: Obj): Session => {
    const hooks = hooksNow();
    const s = new Session({
      id: sid,
      cwd: typeof params.cwd === 'string' ? params.cwd : '/',
      additionalDirectories: Array.isArray(params.additionalDirectories)
        ? (params.additionalDirectories as string[])
        : [],
      mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
      port: port(sid),
      broker,
      logger,
      ...(hooks ? { hooks } : {}),
      permissionMode: opts.permission?.mode ?? 'ask',
      baseRules: () => opts.permission?.rules ?? [],
      now,
    });
    if (opts.onEvent) s.subscribe(opts.onEvent);
    sessions.set(sid, s);
    order.push(s);
    const pending = early.get(sid);
    if (pending) {
      early.delete(sid);
      for (const u of pending) s.receiveUpdate(u);
    }
    return s;
  };

  const unregister = (sid: string) => {
    const s = sessions.get(sid);
    sessions.delete(sid);
    if (s) order.splice(order.indexOf(s), 1);
  };

  /** Queues the recorded request's answer for the Session call about to make it. */
  const expect = (sid: string, req: ClientReq): Deferred => {
    const d = deferred(req.method);
    req.d = d;
    const q = fifo.get(sid) ?? [];
    q.push(d);
    fifo.set(sid, q);
    return d;
  };
  const unclaimed = (sid: string, d: Deferred) => {
    const q = fifo.get(sid) ?? [];
    const i = q.indexOf(d);
    if (i < 0) return false;
    q.splice(i, 1);
    return true;
  };

  const clientRequest = (msg: RawMessage) => {
    const method = msg.method!;
    const params = recordOrEmpty(msg.params);
    const req: ClientReq = { method, params, line: lineNo };
    clientReqs.set(msg.id, req);
    const sid = typeof params.sessionId === 'string' ? params.sessionId : '';
    if (method === 'session/load' || method === 'session/resume') {
      const open = sessions.get(sid);
      req.existed = open !== undefined;
      (open ?? register(sid, params)).beginReplay(open !== undefined);
      return;
    }
    const s = sessions.get(sid);
    const call = (what: () => Promise<unknown>, fallback?: () => void) => {
      if (!s) return note('unknown_session', `${method} for a session the log never opened (${sid})`);
      const d = expect(sid, req);
      const failed = (err: unknown) => note('request_failed', `${method}: ${describeError(err).message}`);
      let p: Promise<unknown>;
      try {
        p = what();
      } catch (err) {
        // Refused before any request (a closed session, an empty prompt): nothing waits for the answer.
        unclaimed(sid, d);
        return failed(err);
      }
      running.push(p.catch(failed));
      if (unclaimed(sid, d)) {
        if (method !== 'session/prompt') req.fallback = fallback;
        // A prompt can sit in the queue until the running turn ends; anything else was refused.
        else fifo.get(sid)!.push(d);
      }
    };
    switch (method) {
      case 'session/prompt':
        return call(() => {
          const turn = s!.prompt(Array.isArray(params.prompt) ? (params.prompt as ContentBlock[]) : []);
          return turn.result.then((r) => void turns.push(r));
        });
      case 'session/set_model':
        return call(
          () => s!.setModel(String(params.modelId)),
          () => s!.setCatalog(applyCurrentModel(s!.catalog, String(params.modelId))),
        );
      case 'session/set_mode':
        return call(
          () => s!.setMode(String(params.modeId)),
          () => s!.setCatalog(applyCurrentMode(s!.catalog, String(params.modeId))),
        );
      case 'session/set_config_option':
        return call(() => s!.setConfigOption(String(params.configId), params.value));
      default:
        return; // initialize, session/new, list, close, extensions: only their answers matter
    }
  };

  const agentResponse = (msg: RawMessage) => {
    const req = clientReqs.get(msg.id);
    if (!req) return;
    clientReqs.delete(msg.id);
    const res = msg.result;
    const err = msg.error
      ? withMethod(new RequestError(msg.error.code, msg.error.message, msg.error.data), req.method)
      : undefined;
    const sid = typeof req.params.sessionId === 'string' ? req.params.sessionId : '';
    switch (req.method) {
      case 'initialize': {
        const r = recordOrEmpty(res);
        const pc = recordOrEmpty(recordOrEmpty(r.agentCapabilities).promptCapabilities);
        caps = { image: pc.image === true, audio: pc.audio === true, embeddedContext: pc.embeddedContext === true };
        if (r.agentInfo) {
          result.agentInfo = recordOrEmpty(r.agentInfo);
          agentHooks = opts.hooksForAgent?.(result.agentInfo);
        }
        return;
      }
      case 'session/new':
      case 'session/fork': {
        const newId = recordOrEmpty(res).sessionId;
        if (err || typeof newId !== 'string' || newId === '') {
          return note(
            'session_setup_failed',
            `${req.method} failed: ${err ? describeError(err).message : 'no sessionId in the answer'}`,
          );
        }
        register(newId, req.params).adoptSetup(res);
        return;
      }
      case 'session/load':
      case 'session/resume': {
        const s = sessions.get(sid);
        if (!s) return;
        const count = s.replayCount;
        s.endReplay();
        const empty =
          res === null || res === undefined || (typeof res === 'object' && Object.keys(res as object).length === 0);
        const notFound =
          req.method === 'session/load' && empty && count === 0 && (hooksNow()?.loadEmptyMeansNotFound ?? false);
        if (err || notFound) {
          if (!req.existed) unregister(sid);
          return note(
            'session_setup_failed',
            `${req.method} ${sid} failed: ${err ? describeError(err).message : 'the agent answered {} (not found)'}`,
          );
        }
        s.adoptSetup(res);
        return;
      }
      default:
        if (!req.d) return;
        if (err) req.d.reject(err);
        else {
          req.fallback?.();
          req.d.resolve(res);
        }
    }
  };

  const agentRequest = (msg: RawMessage) => {
    if (msg.method !== 'session/request_permission') return; // fs/terminal requests make no events
    const params = recordOrEmpty(msg.params);
    const sid = typeof params.sessionId === 'string' ? params.sessionId : '';
    const s = sessions.get(sid);
    if (!s) return; // live, an unknown session is answered `cancelled` without events
    const entry: AgentReq = { sessionId: sid, key: `${sid}:${String(msg.id)}`, done: Promise.resolve() };
    entry.done = s.requestPermission(params, msg.id as string | number).then((o) => void (entry.outcome = o));
    agentReqs.set(msg.id, entry);
  };

  const clientAnswer = async (msg: RawMessage) => {
    const entry = agentReqs.get(msg.id);
    if (!entry) return;
    agentReqs.delete(msg.id);
    const recorded = recordOrEmpty(recordOrEmpty(msg.result).outcome);
    const optionId =
      !msg.error && recorded.outcome === 'selected' && typeof recorded.optionId === 'string'
        ? recorded.optionId
        : undefined;
    if (broker.pending(entry.sessionId).some((p) => p.requestKey === entry.key)) {
      if (optionId === undefined) broker.cancelSession(entry.sessionId);
      else {
        const r = sessions.get(entry.sessionId)?.answerPermission(entry.key, { optionId });
        if (r && !r.ok) note('permission_answer', `recorded answer ${optionId} could not be replayed (${r.reason})`);
      }
    } else {
      await entry.done;
      const decided = entry.outcome?.outcome === 'selected' ? entry.outcome.optionId : undefined;
      if (decided !== optionId) {
        note(
          'permission_mismatch',
          `the replay policy answered ${decided ?? 'cancelled'}, the recording ${optionId ?? 'cancelled'}`,
        );
      }
    }
    await entry.done;
  };

  for (const line of lines) {
    lineNo++;
    clock = line.t_ms;
    const msg = line.msg;
    const hasId = msg.id !== undefined && msg.id !== null;
    if (line.dir === 'client->agent') {
      if (typeof msg.method === 'string') {
        if (hasId) clientRequest(msg);
        else if (msg.method === 'session/cancel') {
          const s = sessions.get(String(recordOrEmpty(msg.params).sessionId));
          if (s) running.push(s.cancel());
        }
      } else if (hasId) await clientAnswer(msg);
    } else if (typeof msg.method === 'string') {
      if (msg.method === 'session/update') {
        const params = recordOrEmpty(msg.params);
        const update = recordOrEmpty(params.update) as Update;
        const sid = params.sessionId;
        if (typeof sid !== 'string' || typeof update.sessionUpdate !== 'string')
          note('bad_update', 'session/update without sessionId or update');
        else if (sessions.has(sid)) sessions.get(sid)!.receiveUpdate(update);
        else {
          const list = early.get(sid) ?? [];
          list.push(update);
          early.set(sid, list);
        }
      } else if (hasId) agentRequest(msg);
    } else if (hasId) agentResponse(msg);
    await settle();
  }

  lineNo = 0;
  // The log stopped with requests open: live, that was the agent dying (or being killed).
  const open = [...clientReqs.values()].filter((r) => r.d);
  if (open.length > 0 || broker.pending().length > 0) {
    const lost = new ConnectionClosedError('eof', 'the wire log ends before the agent answered');
    broker.closeAll();
    for (const r of open) r.d!.reject(lost);
    for (const s of sessions.values()) s.connectionLost(lost);
    note(
      'log_ended_open',
      `the log ends with ${open.length} unanswered request(s): ${open.map((r) => r.method).join(', ') || 'permission'}`,
    );
  }
  await Promise.all(running);
  await settle();
  return result;
}
