/**
 * A raw agent that runs shell tools the way most agents do — `sh -c CMD` as its own child, in
 * its own process group (not detached) — and reacts to a cancel the way most do: it kills that child (only)
 * and answers `cancelled`, leaving the tool call unsettled (like claude-agent-acp). Whatever the
 * command started outside (setsid, a double fork, a background job) is left running, which is
 * exactly what the host's reaper must clean up. The prompt's first word picks the behaviour:
 *   run CMD   → a tool call `in_progress`, `sh -c CMD` in the session's cwd; the turn ends when
 *               the command exits (completed) or on cancel
 *   bg CMD    → starts `sh -c CMD` and ends the turn at once (work meant to outlive its turn)
 *   term CMD  → like `run`, through the client's terminal/create (a shell string, as the older
 *               Claude adapter sends it); on cancel it asks terminal/kill, then answers
 *   pid       → this process's pid
 *   anything  → "echo: TEXT"
 */
import { spawn } from 'node:child_process';
import { INIT_RESULT, readMessages, respond, respondError, send, textChunk, update, type Msg } from './raw-lib.js';

const sessions = new Map<string, { cwd: string }>();
const cancels = new Map<string, () => void>();
let seq = 0;
let tools = 0;
let reqSeq = 0;
const waiting = new Map<number, (m: Msg) => void>();

/** A request to the client; resolves with its response. */
function ask(method: string, params: unknown): Promise<Msg> {
  const id = ++reqSeq;
  send({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

readMessages((msg) => {
  if (msg.method === undefined && typeof msg.id === 'number' && waiting.has(msg.id)) {
    const r = waiting.get(msg.id)!;
    waiting.delete(msg.id);
    return r(msg);
  }
  if (msg.method === 'session/cancel') return cancels.get(String(msg.params?.sessionId))?.();
  if (msg.method === undefined || msg.id === undefined) return;
  void handle(msg);
});

async function handle(msg: Msg): Promise<void> {
  const p = msg.params ?? {};
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, { ...INIT_RESULT, agentInfo: { name: 'tool-agent', version: '1.0.0' } });
    case 'session/new': {
      const id = `t-${process.pid}-${++seq}`;
      sessions.set(id, { cwd: String(p.cwd) });
      return respond(msg.id, { sessionId: id });
    }
    case 'session/prompt':
      return prompt(msg);
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
}

async function prompt(msg: Msg): Promise<void> {
  const sid = String(msg.params?.sessionId);
  const s = sessions.get(sid);
  if (!s) return respondError(msg.id, -32602, `Unknown session ${sid}`);
  const text = ((msg.params?.prompt ?? []) as { text?: string }[])
    .map((b) => b.text ?? '')
    .join(' ')
    .trim();
  const word = text.split(/\s+/, 1)[0] ?? '';
  const arg = text.slice(word.length).trim();
  if (word === 'pid') {
    textChunk(sid, String(process.pid));
    return respond(msg.id, { stopReason: 'end_turn' });
  }
  if (word === 'bg') {
    spawn('/bin/sh', ['-c', arg], { cwd: s.cwd, stdio: 'ignore' }).unref();
    textChunk(sid, 'started');
    return respond(msg.id, { stopReason: 'end_turn' });
  }
  if (word === 'term') return viaTerminal(msg, sid, arg);
  if (word !== 'run') {
    textChunk(sid, `echo: ${text}`);
    return respond(msg.id, { stopReason: 'end_turn' });
  }
  const toolCallId = `tool-${++tools}`;
  update(sid, {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: arg,
    kind: 'execute',
    status: 'in_progress',
    rawInput: { command: arg },
  });
  const child = spawn('/bin/sh', ['-c', arg], { cwd: s.cwd, stdio: 'ignore' });
  const outcome = await new Promise<'cancelled' | number>((resolve) => {
    cancels.set(sid, () => resolve('cancelled'));
    child.once('exit', (code) => resolve(code ?? -1));
  });
  cancels.delete(sid);
  if (outcome === 'cancelled') {
    child.kill('SIGTERM');
    return respond(msg.id, { stopReason: 'cancelled' });
  }
  update(sid, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
  textChunk(sid, `exit ${outcome}`);
  respond(msg.id, { stopReason: 'end_turn' });
}

async function viaTerminal(msg: Msg, sid: string, command: string): Promise<void> {
  const toolCallId = `tool-${++tools}`;
  update(sid, {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: command,
    kind: 'execute',
    status: 'in_progress',
    rawInput: { command },
  });
  const created = await ask('terminal/create', { sessionId: sid, command, outputByteLimit: 32000 });
  const terminalId = (created.result as { terminalId?: string } | undefined)?.terminalId;
  if (!terminalId) return respondError(msg.id, -32603, `terminal/create failed: ${JSON.stringify(created.error)}`);
  const outcome = await new Promise<'cancelled' | 'exited'>((resolve) => {
    cancels.set(sid, () => resolve('cancelled'));
    void ask('terminal/wait_for_exit', { sessionId: sid, terminalId }).then(() => resolve('exited'));
  });
  cancels.delete(sid);
  if (outcome === 'cancelled') {
    await ask('terminal/kill', { sessionId: sid, terminalId });
    return respond(msg.id, { stopReason: 'cancelled' });
  }
  await ask('terminal/release', { sessionId: sid, terminalId });
  update(sid, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
  respond(msg.id, { stopReason: 'end_turn' });
}
