/**
 * Turns recorded wire logs (test/fixtures/…/*.ndjson: `{"t_ms","dir","msg"}` per line) into the
 * ThreadActions the session layer would feed the reducer, for one session:
 * - client `session/prompt` request → `turn.started` (turnId = String(request id), its prompt);
 *   the agent's response → `turn.ended` (stopReason `cancelled` → 'cancelled', an error → 'failed',
 *   anything else → 'completed');
 * - agent `session/update` for the session → `update`;
 * - agent `session/request_permission` → `permission` (status 'pending') at the request, then again
 *   at the client's answer (selected allow_* → 'allowed', reject_* → 'rejected', cancelled or an
 *   error → 'cancelled').
 * Each action says which client request for the session was open when it arrived (`within`), so a
 * test can split e.g. a `session/load` replay from a `session/resume` one (each is a fresh thread).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WireLogLine, RawMessage } from '../../src/protocol/types.js';
import type { PermissionState, Thread, ThreadAction, ThreadChange } from '../../src/thread/types.js';
import { createThread, reduce } from '../../src/thread/index.js';

export interface FixtureAction {
  action: ThreadAction;
  /** 1-based line number in the fixture. */
  line: number;
  t_ms: number;
  /** The client request for this session still unanswered when the frame arrived (latest one). */
  within?: { method: string; id: string | number };
}

export function fixturePath(name: string, dir = 'hermes-0.18.2'): string {
  return fileURLToPath(new URL(`../fixtures/${dir}/${name}`, import.meta.url));
}

/** One plain JSON.parse per non-blank line. */
export function parseFixture(text: string): WireLogLine[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as WireLogLine);
}

export function readFixture(name: string, dir?: string): WireLogLine[] {
  return parseFixture(readFileSync(fixturePath(name, dir), 'utf8'));
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** The first session id the log mentions (session/new result, a request's params, or an update). */
export function firstSessionId(lines: readonly WireLogLine[]): string | undefined {
  for (const { msg } of lines) {
    const sid = obj(msg.params).sessionId ?? obj(msg.result).sessionId;
    if (typeof sid === 'string' && sid !== '') return sid;
  }
  return undefined;
}

function permissionAnswer(req: Obj, msg: RawMessage): Pick<PermissionState, 'status' | 'optionId' | 'optionKind'> {
  const outcome = obj(obj(msg.result).outcome);
  if (msg.error || outcome.outcome !== 'selected' || typeof outcome.optionId !== 'string')
    return { status: 'cancelled' };
  const options = Array.isArray(req.options) ? (req.options as Obj[]) : [];
  const kind = options.find((o) => o.optionId === outcome.optionId)?.kind;
  const status = typeof kind === 'string' && kind.startsWith('allow') ? 'allowed' : 'rejected';
  return typeof kind === 'string'
    ? { status, optionId: outcome.optionId, optionKind: kind }
    : { status, optionId: outcome.optionId };
}

export function fixtureActions(lines: readonly WireLogLine[], opts: { sessionId?: string } = {}): FixtureAction[] {
  const sid = opts.sessionId ?? firstSessionId(lines);
  const out: FixtureAction[] = [];
  if (sid === undefined) return out;
  // Request ids overlap across directions (Hermes numbers its own requests from 0), so track each side apart.
  const clientReqs = new Map<string | number, { method: string; params: Obj }>();
  const agentReqs = new Map<string | number, Obj>();
  const windows: { method: string; id: string | number }[] = [];

  lines.forEach(({ dir, msg, t_ms }, i) => {
    const push = (action: ThreadAction) => {
      const w = windows[windows.length - 1];
      out.push(w ? { action, line: i + 1, t_ms, within: w } : { action, line: i + 1, t_ms });
    };
    const params = obj(msg.params);
    const id = msg.id;
    if (dir === 'client->agent') {
      if (typeof msg.method === 'string') {
        if (id === undefined || id === null || params.sessionId !== sid) return;
        clientReqs.set(id, { method: msg.method, params });
        windows.push({ method: msg.method, id });
        if (msg.method === 'session/prompt') {
          push({ type: 'turn.started', turnId: String(id), prompt: Array.isArray(params.prompt) ? params.prompt : [] });
        }
      } else if (id !== undefined && id !== null && agentReqs.has(id)) {
        const req = agentReqs.get(id)!;
        agentReqs.delete(id);
        const toolCallId = String(obj(req.toolCall).toolCallId);
        push({
          type: 'permission',
          toolCall: { toolCallId },
          permission: { requestId: id, ...permissionAnswer(req, msg) },
        });
      }
      return;
    }
    // agent -> client
    if (msg.method === 'session/update') {
      if (params.sessionId === sid) push({ type: 'update', update: params.update as { sessionUpdate: string } });
    } else if (msg.method === 'session/request_permission') {
      if (params.sessionId !== sid || id === undefined || id === null) return;
      agentReqs.set(id, params);
      const toolCall = obj(params.toolCall) as { toolCallId: string };
      push({ type: 'permission', toolCall, permission: { requestId: id, status: 'pending' } });
    } else if (msg.method === undefined && id !== undefined && id !== null && clientReqs.has(id)) {
      const req = clientReqs.get(id)!;
      clientReqs.delete(id);
      const w = windows.findIndex((x) => x.id === id);
      if (w >= 0) windows.splice(w, 1);
      if (req.method === 'session/prompt') {
        const stop = obj(msg.result).stopReason;
        push({
          type: 'turn.ended',
          turnId: String(id),
          outcome: msg.error ? 'failed' : stop === 'cancelled' ? 'cancelled' : 'completed',
        });
      }
    }
  });
  return out;
}

/** Reduces actions into a thread (a fresh one by default); returns it with every change emitted. */
export function replay(
  actions: Iterable<ThreadAction | FixtureAction>,
  thread: Thread = createThread(),
): { thread: Thread; changes: ThreadChange[] } {
  const changes: ThreadChange[] = [];
  for (const a of actions) {
    const action = 'action' in a ? a.action : a;
    for (const c of reduce(thread, action)) changes.push(c);
  }
  return { thread, changes };
}

/** Shorthand: the thread of a fixture's first (or given) session. */
export function replayFixture(name: string, opts: { sessionId?: string } = {}): Thread {
  return replay(fixtureActions(readFixture(name), opts)).thread;
}
