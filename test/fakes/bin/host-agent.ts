/**
 * A raw agent for host fault tests: sessions persist in files (so a NEW process can load them),
 * and the prompt's first word picks a fault. Env: HOST_AGENT_STATE (session folder, default
 * <cwd>/.host-agent), HOST_AGENT_LOG (every received frame appended as {pid, msg}),
 * HOST_AGENT_NO_LOAD=1 (no loadSession capability), HOST_AGENT_AUTH=1 (initialize lists an auth method).
 *   echo TEXT       → "echo: TEXT" (the default)
 *   crash           → one chunk, a traceback on stderr, exit 3
 *   stall           → silent until cancelled, then `cancelled`
 *   deaf            → silent, ignores cancel and stdin EOF (only a signal stops it)
 *   env NAME        → the value of $NAME
 *   fork            → starts a grandchild (same process group, ignores SIGTERM); answers {"agent","child"} pids
 *   busy N          → N chunks 5 ms apart; answers "max=K", K = most prompts this process ran at once
 *   pid             → this process's pid
 *   term NAME       → runs `printenv NAME` through terminal/create and says "term NAME=<output>"
 *   auth            → the prompt fails -32000 "Authentication required" (no data)
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMessages, respond, respondError, send, textChunk, update, type Msg } from './raw-lib.js';

const STATE = process.env.HOST_AGENT_STATE || join(process.cwd(), '.host-agent');
const LOG = process.env.HOST_AGENT_LOG;
mkdirSync(STATE, { recursive: true });

interface Rec {
  id: string;
  cwd: string;
  history: { role: 'user' | 'agent'; text: string }[];
}
const file = (id: string) => join(STATE, `${id.replace(/[^\w.-]/g, '_')}.json`);
const read = (id: string): Rec | null =>
  existsSync(file(id)) ? (JSON.parse(readFileSync(file(id), 'utf8')) as Rec) : null;
const save = (r: Rec) => writeFileSync(file(r.id), JSON.stringify(r));

let seq = 0;
let running = 0;
let maxRunning = 0;
const cancelled = new Map<string, () => void>();
let deaf = false;
let reqSeq = 0;
const waiting = new Map<string, (msg: Msg) => void>();

/** An agent→client request; resolves with the client's response message. */
function ask(method: string, params: Record<string, unknown>): Promise<Msg> {
  const id = `host-agent-${++reqSeq}`;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ id, method, params });
  });
}

readMessages(
  (msg) => {
    if (LOG) appendFileSync(LOG, JSON.stringify({ pid: process.pid, msg }) + '\n');
    if (msg.method === undefined && typeof msg.id === 'string' && waiting.has(msg.id)) {
      waiting.get(msg.id)!(msg);
      waiting.delete(msg.id);
      return;
    }
    if (msg.method === 'session/cancel') return cancelled.get(String(msg.params?.sessionId))?.();
    if (msg.method === undefined || msg.id === undefined) return;
    void handle(msg);
  },
  () => {
    if (!deaf) process.exit(0);
  },
);

async function handle(msg: Msg): Promise<void> {
  const p = msg.params ?? {};
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: process.env.HOST_AGENT_NO_LOAD !== '1',
          promptCapabilities: {},
          sessionCapabilities: { list: {} },
        },
        agentInfo: { name: 'host-agent', version: '1.0.0' },
        authMethods: process.env.HOST_AGENT_AUTH === '1' ? [{ id: 'agent-login', name: 'Log in to the agent' }] : [],
      });
    case 'session/new': {
      const r: Rec = { id: `h-${process.pid}-${++seq}`, cwd: String(p.cwd), history: [] };
      save(r);
      return respond(msg.id, { sessionId: r.id });
    }
    case 'session/load': {
      const r = read(String(p.sessionId));
      if (!r) return respondError(msg.id, -32002, 'Resource not found', { uri: p.sessionId });
      for (const h of r.history) {
        update(r.id, {
          sessionUpdate: h.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
          content: { type: 'text', text: h.text },
        });
      }
      return respond(msg.id, {});
    }
    case 'session/list':
      return respond(msg.id, { sessions: [] });
    case 'session/prompt':
      return prompt(msg);
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
}

async function prompt(msg: Msg): Promise<void> {
  const sid = String(msg.params?.sessionId);
  const r = read(sid);
  if (!r) return respond(msg.id, { stopReason: 'refusal' });
  const text = ((msg.params?.prompt ?? []) as { type: string; text?: string }[])
    .map((b) => b.text ?? '')
    .join(' ')
    .trim();
  const [word = '', ...rest] = text.split(/\s+/);
  const arg = rest.join(' ');
  if (word === 'auth') return respondError(msg.id, -32000, 'Authentication required');
  r.history.push({ role: 'user', text });
  running++;
  maxRunning = Math.max(maxRunning, running);
  const say = (t: string) => {
    textChunk(sid, t);
    r.history.push({ role: 'agent', text: t });
  };
  let stop = 'end_turn';
  try {
    switch (word) {
      case 'crash':
        textChunk(sid, 'about to crash');
        process.stderr.write('Traceback (most recent call last):\nRuntimeError: host-agent crashed on purpose\n');
        process.exit(3);
        break;
      case 'stall':
        await new Promise<void>((resolve) => cancelled.set(sid, resolve));
        stop = 'cancelled';
        break;
      case 'deaf':
        deaf = true;
        await new Promise(() => {});
        break;
      case 'env':
        say(`env ${arg}=${process.env[arg] ?? '(unset)'}`);
        break;
      case 'fork': {
        const child = spawn(
          process.execPath,
          ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30)"],
          { stdio: 'ignore' },
        );
        say(JSON.stringify({ agent: process.pid, child: child.pid }));
        break;
      }
      case 'busy': {
        for (let i = 0; i < Number(arg || 10); i++) {
          textChunk(sid, '.');
          await new Promise((res) => setTimeout(res, 5));
        }
        say(`max=${maxRunning}`);
        break;
      }
      case 'pid':
        say(String(process.pid));
        break;
      case 'term': {
        const made = await ask('terminal/create', { sessionId: sid, command: 'printenv', args: [arg] });
        const terminalId = (made.result as { terminalId?: string } | undefined)?.terminalId;
        if (!terminalId) {
          say(`term ${arg} failed: ${JSON.stringify(made.error)}`);
          break;
        }
        await ask('terminal/wait_for_exit', { sessionId: sid, terminalId });
        const out = await ask('terminal/output', { sessionId: sid, terminalId });
        await ask('terminal/release', { sessionId: sid, terminalId });
        say(`term ${arg}=${((out.result as { output?: string } | undefined)?.output ?? '').trim() || '(unset)'}`);
        break;
      }
      default:
        say(`echo: ${word === 'echo' ? arg : text}`);
    }
  } finally {
    running--;
    cancelled.delete(sid);
  }
  save(r);
  respond(msg.id, {
    stopReason: stop,
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
    _meta: { sessionId: sid },
  });
}
