/**
 * A fake agent (the official SDK's agent side, run as a real process over real pipes) that asks
 * Talaria to do things for it: each line of the prompt is one step, and each step's result is
 * reported back as one agent_message_chunk holding JSON (`{"ok":…}` or `{"error":{code,…}}`).
 *   write PATH TEXT     fs/write_text_file, no permission asked first
 *   read PATH           fs/read_text_file, no permission asked first
 *   run COMMAND…        terminal/create (a shell line, as the older Claude adapter sends), then
 *                       wait_for_exit + output + release
 *   ask-write PATH TEXT announce an edit tool call, ask permission for it, and only if allowed
 *                       write through fs/write_text_file (claude-code-acp's order)
 *   ask-run COMMAND…    the same for an execute tool call and terminal/create
 *   claude-run NAME=VALUE COMMAND…
 *                       claude-code-acp's shape: asks for COMMAND offering Always Allow / Allow /
 *                       Reject, then terminal/create of COMMAND with env [{NAME, VALUE}]
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const app = acp.agent({ name: 'effects-fake' });
let nextSession = 1;
let nextCall = 1;

app.onRequest(acp.methods.agent.initialize, async () => ({
  protocolVersion: 1,
  agentInfo: { name: 'effects-fake', version: '1.0.0' },
  agentCapabilities: { loadSession: false, promptCapabilities: {} },
  authMethods: [],
}));

app.onRequest(acp.methods.agent.session.new, async () => ({ sessionId: `fx-${nextSession++}` }));

app.onNotification(acp.methods.agent.session.cancel, async () => {});

type Client = Parameters<Parameters<typeof app.onRequest>[2]>[0]['client'];

async function attempt(fn: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify({ ok: (await fn()) ?? null });
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown; data?: unknown };
    return JSON.stringify({ error: { code: err.code, message: err.message, data: err.data } });
  }
}

async function runTerminal(
  client: Client,
  sessionId: string,
  command: string,
  env?: { name: string; value: string }[],
): Promise<unknown> {
  const params: acp.CreateTerminalRequest = { sessionId, command, outputByteLimit: 32000 };
  if (env) params.env = env;
  const { terminalId } = await client.request(acp.methods.client.terminal.create, params);
  const exit = await client.request(acp.methods.client.terminal.waitForExit, { sessionId, terminalId });
  const out = await client.request(acp.methods.client.terminal.output, { sessionId, terminalId });
  await client.request(acp.methods.client.terminal.release, { sessionId, terminalId });
  return { exit, output: out.output };
}

const ALLOW_ONCE: acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
const CLAUDE_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' },
  ...ALLOW_ONCE,
];

/** `asked`: the tool call as the permission request carries it (claude-code-acp leaves out the kind). */
async function askThen(
  client: Client,
  sessionId: string,
  toolCall: acp.ToolCallUpdate,
  act: () => Promise<unknown>,
  options = ALLOW_ONCE,
  asked = toolCall,
): Promise<unknown> {
  const send = (update: Record<string, unknown>) =>
    client.notify(acp.methods.client.session.update, { sessionId, update: update as never });
  await send({ sessionUpdate: 'tool_call', ...toolCall, status: 'pending' });
  const res = await client.request(acp.methods.client.session.requestPermission, {
    sessionId,
    toolCall: asked,
    options,
  });
  const allowed =
    res.outcome.outcome === 'selected' && (res.outcome.optionId === 'allow' || res.outcome.optionId === 'allow_always');
  if (!allowed) {
    await send({ sessionUpdate: 'tool_call_update', toolCallId: toolCall.toolCallId, status: 'failed' });
    return { permission: 'rejected' };
  }
  await send({ sessionUpdate: 'tool_call_update', toolCallId: toolCall.toolCallId, status: 'in_progress' });
  try {
    return await act();
  } finally {
    await send({ sessionUpdate: 'tool_call_update', toolCallId: toolCall.toolCallId, status: 'completed' });
  }
}

app.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
  const sessionId = params.sessionId;
  const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const [verb = '', arg = '', ...rest] = line.split(' ');
    const tail = rest.join(' ');
    let result: string;
    switch (verb) {
      case 'write':
        result = await attempt(() =>
          client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: arg, content: tail }),
        );
        break;
      case 'read':
        result = await attempt(() => client.request(acp.methods.client.fs.readTextFile, { sessionId, path: arg }));
        break;
      case 'run':
        result = await attempt(() => runTerminal(client, sessionId, [arg, tail].join(' ').trim()));
        break;
      case 'ask-write': {
        const toolCall = {
          toolCallId: `edit-${nextCall++}`,
          title: `Write ${arg}`,
          kind: 'edit' as const,
          locations: [{ path: arg }],
        };
        result = await attempt(() =>
          askThen(client, sessionId, toolCall, () =>
            client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: arg, content: tail }),
          ),
        );
        break;
      }
      case 'ask-run': {
        const command = [arg, tail].join(' ').trim();
        const toolCall = {
          toolCallId: `bash-${nextCall++}`,
          title: `\`${command}\``,
          kind: 'execute' as const,
          rawInput: { command },
        };
        result = await attempt(() =>
          askThen(client, sessionId, toolCall, () => runTerminal(client, sessionId, command)),
        );
        break;
      }
      case 'claude-run': {
        const [name = '', value = ''] = arg.split('=');
        const asked = {
          toolCallId: `bash-${nextCall++}`,
          title: `\`${tail}\``,
          rawInput: { command: tail, timeout: 120000 },
        };
        const run = () => runTerminal(client, sessionId, tail, [{ name, value }]);
        result = await attempt(() =>
          askThen(client, sessionId, { ...asked, kind: 'execute' }, run, CLAUDE_OPTIONS, asked),
        );
        break;
      }
      default:
        result = JSON.stringify({ error: { message: `unknown step ${verb}` } });
    }
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: result + '\n' } },
    });
  }
  return { stopReason: 'end_turn' };
});

app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
process.stdin.on('end', () => process.exit(0));
