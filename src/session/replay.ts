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
 * still open ends like a dead agent (`agent_crashed`), as it did live. The recorded answers wait in
 * replay-port.ts, permission requests and answers go through replay-permissions.ts.
 */
import { createSessionBroker } from './broker-wiring.js';
import { ConnectionClosedError } from '../protocol/errors.js';
import { RequestError, withMethod } from '../protocol/wire-error.js';
import { parseWireLog } from '../protocol/wire-log.js';
import { silentLogger, type RawMessage, type WireLogLine } from '../protocol/types.js';
import type { ContentBlock } from '../thread/types.js';
import { applyCurrentMode, applyCurrentModel } from './catalog.js';
import type { SessionHooks } from './hooks.js';
import { describeError } from './errors.js';
import { Session } from './session.js';
import { ReplayAnswers, type Deferred } from './replay-port.js';
import { ReplayPermissions } from './replay-permissions.js';
import type { ReplayNote, ReplayOptions, ReplayResult } from './replay-types.js';
import type { TurnResult } from './turn.js';
import { recordOrEmpty } from '../os/record.js';

export type { ReplayNote, ReplayOptions, ReplayResult } from './replay-types.js';

type Obj = Record<string, unknown>;
type Update = { sessionUpdate: string; [k: string]: unknown };

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
  const answers = new ReplayAnswers();
  const early = new Map<string, Update[]>();
  const clientReqs = new Map<unknown, ClientReq>();
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
  const permissions = new ReplayPermissions(broker, sessions, note);

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
      port: answers.port(sid, () => caps),
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
      const d = (req.d = answers.expect(sid, method));
      const failed = (err: unknown) => note('request_failed', `${method}: ${describeError(err).message}`);
      let p: Promise<unknown>;
      try {
        p = what();
      } catch (err) {
        // Refused before any request (a closed session, an empty prompt): nothing waits for the answer.
        answers.unclaimed(sid, d);
        return failed(err);
      }
      running.push(p.catch(failed));
      if (answers.unclaimed(sid, d)) {
        if (method !== 'session/prompt') req.fallback = fallback;
        // A prompt can sit in the queue until the running turn ends; anything else was refused.
        else answers.push(sid, d);
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
      } else if (hasId) await permissions.answer(msg);
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
      } else if (hasId) permissions.request(msg);
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
