/**
 * A scriptable fake agent built on the official SDK's agent side, run as a real process over real
 * pipes. The prompt's first word picks the behaviour (`perm PATH` asks a permission, `perm-abort PATH`
 * too and ends the turn `cancelled` when refused, like codex); env switches pick capabilities:
 *   SDK_AGENT_COST=0.01       usage_update carries cost: that many USD per prompt so far
 *   SDK_AGENT_LEGACY=1        answer session/new with legacy `models` + `modes` instead of configOptions
 *   SDK_AGENT_EARLY=1         send updates for a new session BEFORE the session/new response
 *   SDK_AGENT_USAGE=cumulative  report cumulative usage in prompt responses
 *   SDK_AGENT_NO_IMAGE=1      do not advertise promptCapabilities.image
 *   SDK_AGENT_PAGE=N          session/list page size (default 2)
 *   SDK_AGENT_STEERING=1      advertise `_meta.steering.supported` and take `_session/steering`
 *                             (claude-agent-acp's): a running `slow` turn ends saying what it was
 *                             steered with (what its model got); idle → `promptRequired`
 *   SDK_AGENT_NO_LOAD=1       do not advertise loadSession (session/load is refused)
 *   SDK_AGENT_NO_RESUME=1     do not advertise sessionCapabilities.resume (session/resume is refused)
 *   SDK_AGENT_SEED=ID         start with a session ID in the cwd of SDK_AGENT_SEED_CWD holding one
 *                             exchange ("before Talaria": a session only the agent knows)
 * and arguments (they reach it where env does not): `--load-error gemini` answers session/load of an
 * unknown session with -32603 "No previous sessions found…" instead of -32002; `--load-error internal`
 * with -32603 "session store is locked".
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

type Update = Record<string, unknown> & { sessionUpdate: string };
interface S {
  id: string;
  cwd: string;
  history: Update[];
  running: boolean;
  cancelled: boolean;
  mode: string;
  model: string;
}
const sessions = new Map<string, S>();
let nextId = 1;
if (process.env.SDK_AGENT_SEED) {
  const id = process.env.SDK_AGENT_SEED;
  const text = (t: string) => ({ type: 'text', text: t });
  sessions.set(id, {
    id,
    cwd: process.env.SDK_AGENT_SEED_CWD ?? process.cwd(),
    history: [
      { sessionUpdate: 'user_message_chunk', content: text('asked before Talaria') },
      { sessionUpdate: 'agent_message_chunk', content: text('answered before Talaria') },
    ],
    running: false,
    cancelled: false,
    mode: 'default',
    model: 'm-small',
  });
}
let cumulative = 0;
let concurrentPrompts = 0;
const env = process.env;

function setup(s: S) {
  if (env.SDK_AGENT_LEGACY === '1') {
    return {
      models: {
        availableModels: [
          { modelId: 'm-small', name: 'Small', description: 'small model' },
          { modelId: 'm-large', name: 'Large', description: 'large model' },
        ],
        currentModelId: s.model,
      },
      modes: {
        availableModes: [
          { id: 'default', name: 'Default' },
          { id: 'yolo', name: 'Yolo' },
        ],
        currentModeId: s.mode,
      },
    };
  }
  return { configOptions: configOptions(s) };
}

function configOptions(s: S) {
  return [
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: s.model,
      options: [
        { value: 'm-small', name: 'Small' },
        { value: 'm-large', name: 'Large' },
      ],
    },
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: s.mode,
      options: [
        { value: 'default', name: 'Default' },
        { value: 'yolo', name: 'Yolo' },
      ],
    },
  ];
}

const app = acp.agent({ name: 'sdk-fake' });

app.onRequest(acp.methods.agent.initialize, async () => ({
  protocolVersion: 1,
  agentInfo: { name: 'sdk-fake', version: '1.0.0' },
  agentCapabilities: {
    loadSession: env.SDK_AGENT_NO_LOAD !== '1',
    promptCapabilities: { image: env.SDK_AGENT_NO_IMAGE !== '1', embeddedContext: true },
    sessionCapabilities: { list: {}, close: {}, ...(env.SDK_AGENT_NO_RESUME === '1' ? {} : { resume: {} }) },
  },
  authMethods: [],
  ...(env.SDK_AGENT_STEERING === '1'
    ? { _meta: { steering: { supported: true, idleBehavior: 'promptRequired' } } }
    : {}),
}));

// claude-agent-acp's steering extension: the text joins the running turn.
const steers = new Map<string, string[]>();
// As the real adapter (0.101.0): idle, it starts a detached turn of its own unless the client opted
// into `_meta.steering.idleBehavior: 'promptRequired'` (then the message is handed back).
type SteerParams = {
  sessionId: string;
  prompt: { type: string; text?: string }[];
  _meta?: { steering?: { idleBehavior?: string } };
};
app.onRequest('_session/steering', { parse: (p: unknown) => p as SteerParams }, async ({ params }) => {
  const s = sessions.get(params.sessionId);
  if (!s?.running)
    return { outcome: params._meta?.steering?.idleBehavior === 'promptRequired' ? 'promptRequired' : 'startedNewTurn' };
  const list = steers.get(s.id) ?? [];
  list.push(params.prompt.map((b) => b.text ?? '').join(' '));
  steers.set(s.id, list);
  return { outcome: 'injected' };
});

app.onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
  const s: S = {
    id: `s-${nextId++}`,
    cwd: params.cwd,
    history: [],
    running: false,
    cancelled: false,
    mode: 'default',
    model: 'm-small',
  };
  sessions.set(s.id, s);
  if (env.SDK_AGENT_EARLY === '1') {
    await client.notify('session/update', {
      sessionId: s.id,
      update: {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'early', description: 'sent before the response' }],
      },
    });
    await client.notify('session/update', {
      sessionId: s.id,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'welcome' } },
    });
  }
  return { sessionId: s.id, ...setup(s) } as never;
});

app.onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
  if (env.SDK_AGENT_NO_LOAD === '1') throw acp.RequestError.methodNotFound('session/load');
  const s = sessions.get(params.sessionId);
  // `--load-error gemini`: gemini-cli 0.61 answers -32603 for sessions it does not have.
  if (!s && process.argv.includes('gemini'))
    throw new acp.RequestError(-32603, 'Internal error', { details: 'No previous sessions found for this project.' });
  if (!s && process.argv.includes('internal'))
    throw new acp.RequestError(-32603, 'Internal error', { details: 'session store is locked' });
  if (!s) throw acp.RequestError.resourceNotFound(params.sessionId);
  for (const u of s.history) await client.notify('session/update', { sessionId: s.id, update: u as never });
  return setup(s) as never;
});

app.onRequest(acp.methods.agent.session.resume, async ({ params }) => {
  if (env.SDK_AGENT_NO_RESUME === '1') throw acp.RequestError.methodNotFound('session/resume');
  const s = sessions.get(params.sessionId);
  if (!s) throw acp.RequestError.resourceNotFound(params.sessionId);
  return setup(s) as never;
});

app.onRequest(acp.methods.agent.session.list, async ({ params }) => {
  const page = Number(env.SDK_AGENT_PAGE ?? 2);
  const all = [...sessions.values()].filter((s) => !params.cwd || s.cwd === params.cwd);
  const start = params.cursor ? all.findIndex((s) => s.id === params.cursor) + 1 : 0;
  const slice = all.slice(start, start + page);
  const more = start + page < all.length;
  return {
    sessions: slice.map((s) => ({ sessionId: s.id, cwd: s.cwd, title: `t ${s.id}` })),
    ...(more ? { nextCursor: slice.at(-1)!.id } : {}),
  };
});

app.onRequest(acp.methods.agent.session.close, async () => ({}));

app.onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
  const s = sessions.get(params.sessionId)!;
  if (params.configId === 'model') s.model = String(params.value);
  if (params.configId === 'mode') s.mode = String(params.value);
  return { configOptions: configOptions(s) } as never;
});

app.onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
  sessions.get(params.sessionId)!.mode = params.modeId;
  return {};
});

app.onRequest(
  'session/set_model',
  ((p: unknown) => p) as never,
  async ({ params }: { params: { sessionId: string; modelId: string } }) => {
    sessions.get(params.sessionId)!.model = params.modelId;
    cumulative = 0;
    return {};
  },
);

app.onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
  const s = sessions.get(params.sessionId);
  if (s) s.cancelled = true;
});

app.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
  const s = sessions.get(params.sessionId);
  if (!s) return { stopReason: 'refusal' };
  concurrentPrompts++;
  s.running = true;
  s.cancelled = false;
  const send = async (u: Update) => {
    s.history.push(u);
    await client.notify('session/update', { sessionId: s.id, update: u as never });
  };
  const text = params.prompt.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
  const [word = '', arg = ''] = text.split(/\s+/);
  try {
    s.history.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
    if (concurrentPrompts > 1) throw acp.RequestError.internalError({ details: 'concurrent prompt' });
    switch (word) {
      case 'flood': {
        const n = Number(arg);
        for (let i = 0; i < n; i++)
          await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i},` } });
        break;
      }
      case 'tools': {
        await send({
          sessionUpdate: 'tool_call',
          toolCallId: 'read-1',
          title: 'read: notes.txt',
          kind: 'read',
          locations: [{ path: `${s.cwd}/notes.txt` }],
        });
        await send({
          sessionUpdate: 'tool_call',
          toolCallId: 'run-1',
          title: 'run: echo hi',
          kind: 'execute',
          status: 'in_progress',
        });
        await send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'run-1',
          status: 'completed',
          content: [{ type: 'content', content: { type: 'text', text: 'hi' } }],
        });
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } });
        break;
      }
      case 'perm':
      case 'perm-abort': {
        await send({
          sessionUpdate: 'tool_call',
          toolCallId: 'edit-1',
          title: `write: ${arg}`,
          kind: 'edit',
          status: 'pending',
          locations: [{ path: arg }],
        });
        const res = await client.request(acp.methods.client.session.requestPermission, {
          sessionId: s.id,
          toolCall: { toolCallId: 'edit-1', title: `write: ${arg}`, kind: 'edit', locations: [{ path: arg }] },
          options: [
            { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
            { optionId: 'always', name: 'Always', kind: 'allow_always' },
            { optionId: 'no', name: 'No', kind: 'reject_once' },
          ],
        });
        const chosen = res.outcome.outcome === 'selected' ? res.outcome.optionId : 'cancelled';
        await send({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'edit-1',
          status: chosen === 'yes' || chosen === 'always' ? 'completed' : 'failed',
        });
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `permission: ${chosen}` } });
        if (s.cancelled) return { stopReason: 'cancelled' };
        // codex: its reject option ("no, and tell Codex what to do differently") ends the turn `cancelled`.
        if (word === 'perm-abort' && chosen !== 'yes' && chosen !== 'always') return { stopReason: 'cancelled' };
        break;
      }
      case 'unknown': {
        await send({ sessionUpdate: 'future_kind', payload: { a: 1 } } as Update);
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'after unknown' } });
        break;
      }
      case 'slow': {
        await send({
          sessionUpdate: 'tool_call',
          toolCallId: 'long-1',
          title: 'long task',
          kind: 'execute',
          status: 'in_progress',
        });
        for (let i = 0; i < 10_000 && !s.cancelled && !steers.get(s.id)?.length; i++) {
          await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'tick ' } });
          await new Promise((r) => setTimeout(r, 5));
        }
        const steered = steers.get(s.id)?.splice(0);
        if (steered?.length) {
          await send({ sessionUpdate: 'tool_call_update', toolCallId: 'long-1', status: 'completed' });
          await send({
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: ` steered with: ${steered.join(' | ')}` },
          });
          return { stopReason: 'end_turn' };
        }
        if (arg === 'late') {
          // Some agents keep reporting after a cancel (and report the killed tool completed).
          await send({ sessionUpdate: 'tool_call_update', toolCallId: 'long-1', status: 'completed' });
          await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'late text' } });
        }
        return { stopReason: s.cancelled ? 'cancelled' : 'end_turn' };
      }
      case 'image': {
        const images = params.prompt.filter((b) => b.type === 'image').length;
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `images: ${images}` } });
        break;
      }
      case 'fail':
        throw acp.RequestError.internalError({ details: 'model exploded' });
      case 'crash':
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'about to crash' } });
        process.stderr.write('fatal: simulated crash\n');
        process.exit(3);
        break;
      default:
        await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `echo: ${text}` } });
    }
    // SDK_AGENT_COST: the agent reports what the session cost so far (USD per prompt), as ACP's usage_update allows.
    const prompts = s.history.filter((u) => u.sessionUpdate === 'user_message_chunk').length;
    const cost = env.SDK_AGENT_COST ? { cost: { amount: Number(env.SDK_AGENT_COST) * prompts, currency: 'USD' } } : {};
    await send({ sessionUpdate: 'usage_update', used: 100 + s.history.length, size: 1000, ...cost });
    cumulative += 10;
    const usage =
      env.SDK_AGENT_USAGE === 'cumulative'
        ? { inputTokens: cumulative, outputTokens: cumulative / 10, totalTokens: cumulative * 1.1 }
        : { inputTokens: 10, outputTokens: 1, totalTokens: 11 };
    return { stopReason: 'end_turn', usage, _meta: { extra: 'kept' } } as never;
  } finally {
    concurrentPrompts--;
    s.running = false;
  }
});

app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
process.stdin.on('end', () => process.exit(0));
