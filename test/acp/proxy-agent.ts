/**
 * A raw ACP agent for the proxy tests of `talaria acp`: it lists terminal auth methods whatever the
 * client offers (as the Claude adapters do once offered `terminal-auth`), sends a vendor request
 * without a leading `_` mid-turn (qwen's `craft/drainMidTurnQueue`) and says what it got back, and
 * runs a command through the client's terminal/* showing it as terminal content (claude-code-acp).
 */
import {
  INIT_RESULT,
  readMessages,
  respond,
  respondError,
  send,
  textChunk,
  update,
  type Msg,
} from '../fakes/bin/raw-lib.js';

const AUTH = [
  { id: 'token', name: 'Token' },
  {
    id: 'meta-login',
    name: 'Log in',
    _meta: { 'terminal-auth': { command: '/opt/vendor/login-tool', args: ['--login'], label: 'Vendor login' } },
  },
  { id: 'setup', name: 'Set up', type: 'terminal', args: ['--setup'] },
];

let next = 0;
let sessions = 0;
const waiting = new Map<string, (m: Msg) => void>();

function call(method: string, params: unknown): Promise<Msg> {
  const id = `pa-${++next}`;
  send({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function prompt(id: Msg['id'], sessionId: string, text: string): Promise<void> {
  if (text === 'EXT') {
    const r = await call('craft/drainMidTurnQueue', { sessionId, max: 2 });
    textChunk(sessionId, `answer:${JSON.stringify(r.error ?? r.result)}`);
  } else if (text === 'TERM') {
    const created = await call('terminal/create', {
      sessionId,
      command: '/bin/sh',
      args: ['-c', 'echo hello-from-terminal; echo second-line'],
    });
    const terminalId = (created.result as { terminalId: string }).terminalId;
    const content = [{ type: 'terminal', terminalId }];
    update(sessionId, {
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'Run a command',
      kind: 'execute',
      status: 'in_progress',
      content,
    });
    await call('terminal/wait_for_exit', { sessionId, terminalId });
    await call('terminal/output', { sessionId, terminalId });
    // Settled without content, and released right away (as claude-code-acp does).
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' });
    await call('terminal/release', { sessionId, terminalId });
  }
  respond(id, { stopReason: 'end_turn' });
}

readMessages((msg) => {
  if (msg.method === undefined) {
    const w = waiting.get(String(msg.id));
    waiting.delete(String(msg.id));
    w?.(msg);
    return;
  }
  if (msg.id === undefined) return;
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, {
        ...INIT_RESULT,
        agentInfo: { name: 'proxy-agent', version: '1.0.0' },
        authMethods: AUTH,
      });
    case 'session/new':
      return respond(msg.id, { sessionId: `pa-session-${++sessions}` });
    case 'session/prompt': {
      const blocks = (msg.params?.prompt ?? []) as { text?: string }[];
      prompt(msg.id, String(msg.params?.sessionId), blocks.map((b) => b.text ?? '').join('')).catch((e: unknown) => {
        process.stderr.write(`proxy-agent: ${String(e)}\n`);
        process.exit(1);
      });
      return;
    }
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
});
