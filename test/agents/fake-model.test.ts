/**
 * The fake model server, driven over loopback with fetch() the way each provider's SDK would
 * call it; SSE parsed by hand here so the wire shapes themselves are checked.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from './fake-model/index.js';
import { DEFAULT_WRITE_CONTENT } from './fake-model/steer.js';
import { addFilePatch, pickTool, planToolCall } from './fake-model/tools.js';
import {
  asAnthropic,
  asChat,
  asGemini,
  asResponses,
  CLAUDE_CODE_TOOLS,
  CODEX_FUNCTION_PATCH_TOOLS,
  CODEX_TOOLS,
  COPILOT_TOOLS,
  GEMINI_CLI_TOOLS,
  GEMINI_UPPERCASE_TOOLS,
  OPENCODE_TOOLS,
} from './fake-model/sample-tools.js';

// Parsed provider JSON is loose by nature; the assertions are the type checks here.
type Loose = any;
interface SseEvent {
  event?: string;
  data: Loose;
}
interface Answer {
  status: number;
  headers: Headers;
  raw: string;
  json?: Loose;
  events: SseEvent[];
}

function parseSse(raw: string): SseEvent[] {
  return raw
    .split(/\r?\n\r?\n/)
    .filter((b) => b.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      const text = data.join('\n');
      return { ...(event !== undefined ? { event } : {}), data: text === '[DONE]' ? text : JSON.parse(text) };
    });
}

let fm: FakeModel;

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const res = await fetch(fm.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const raw = await res.text();
  const sse = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return {
    status: res.status,
    headers: res.headers,
    raw,
    events: sse ? parseSse(raw) : [],
    ...(sse ? {} : { json: JSON.parse(raw) }),
  };
}

const ANTHROPIC_HEADERS = { 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01' };
const OPENAI_HEADERS = { authorization: 'Bearer sk-secret' };
const anthropic = (messages: unknown[], extra: Record<string, unknown> = {}): Promise<Answer> =>
  post(
    '/v1/messages?beta=true',
    { model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, messages, ...extra },
    ANTHROPIC_HEADERS,
  );
const chat = (messages: unknown[], extra: Record<string, unknown> = {}): Promise<Answer> =>
  post('/v1/chat/completions', { model: 'fake-model', stream: true, messages, ...extra }, OPENAI_HEADERS);
const responses = (input: unknown, extra: Record<string, unknown> = {}): Promise<Answer> =>
  post('/v1/responses', { model: 'gpt-5.4', stream: true, input, ...extra }, OPENAI_HEADERS);
const gemini = (
  contents: unknown[],
  extra: Record<string, unknown> = {},
  verb = 'streamGenerateContent?alt=sse',
): Promise<Answer> =>
  post(`/v1beta/models/gemini-2.5-flash:${verb}`, { contents, ...extra }, { 'x-goog-api-key': 'gm-secret' });

/** Rebuilds an Anthropic message from its stream: text, thinking and tool inputs from the deltas. */
function anthropicCollect(events: SseEvent[]): {
  text: string;
  thinking: string;
  tools: { id: string; name: string; input: Loose }[];
  stop: string;
} {
  let text = '';
  let thinking = '';
  const json = new Map<number, string>();
  const tools: { index: number; id: string; name: string }[] = [];
  let stop = '';
  for (const { event, data } of events) {
    expect(data.type).toBe(event);
    if (event === 'content_block_start' && data.content_block.type === 'tool_use') {
      tools.push({ index: data.index, id: data.content_block.id, name: data.content_block.name });
    }
    if (event === 'content_block_delta') {
      if (data.delta.type === 'text_delta') text += data.delta.text;
      if (data.delta.type === 'thinking_delta') thinking += data.delta.thinking;
      if (data.delta.type === 'input_json_delta')
        json.set(data.index, (json.get(data.index) ?? '') + data.delta.partial_json);
    }
    if (event === 'message_delta') stop = data.delta.stop_reason;
  }
  return {
    text,
    thinking,
    stop,
    tools: tools.map((t) => ({ id: t.id, name: t.name, input: JSON.parse(json.get(t.index) ?? '{}') })),
  };
}

function chatCollect(events: SseEvent[]): {
  text: string;
  calls: { id: string; name: string; args: Loose }[];
  finish: string;
  usage?: Loose;
} {
  let text = '';
  let finish = '';
  let usage: Loose;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  expect(events.at(-1)?.data).toBe('[DONE]');
  for (const { data } of events.slice(0, -1)) {
    expect(data.object).toBe('chat.completion.chunk');
    if (data.usage) usage = data.usage;
    const choice = data.choices[0];
    if (!choice) continue;
    if (typeof choice.delta.content === 'string') text += choice.delta.content;
    for (const tc of choice.delta.tool_calls ?? []) {
      const c = calls.get(tc.index) ?? { id: '', name: '', args: '' };
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.name = tc.function.name;
      c.args += tc.function?.arguments ?? '';
      calls.set(tc.index, c);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return {
    text,
    finish,
    usage,
    calls: [...calls.values()].map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.args) })),
  };
}

function responsesCollect(events: SseEvent[]): { text: string; calls: Loose[]; completed: Loose } {
  let text = '';
  const calls: Loose[] = [];
  const args = new Map<string, string>();
  events.forEach(({ event, data }, i) => {
    expect(data.type).toBe(event);
    expect(data.sequence_number).toBe(i);
    if (event === 'response.output_text.delta') text += data.delta;
    if (event === 'response.function_call_arguments.delta' || event === 'response.custom_tool_call_input.delta') {
      args.set(data.item_id, (args.get(data.item_id) ?? '') + data.delta);
    }
    if (event === 'response.output_item.added' && data.item.type !== 'message' && data.item.type !== 'reasoning')
      calls.push({ ...data.item });
  });
  for (const c of calls) {
    const streamed = args.get(c.id) ?? '';
    if (c.type === 'function_call') c.arguments = JSON.parse(streamed);
    else c.input = streamed;
  }
  return { text, calls, completed: events.at(-1)?.data.response };
}

function geminiCollect(events: SseEvent[]): { text: string; calls: Loose[]; finish?: string; usage: Loose } {
  let text = '';
  const calls: Loose[] = [];
  for (const { data } of events) {
    for (const part of data.candidates[0].content.parts) {
      if (typeof part.text === 'string' && !part.thought) text += part.text;
      if (part.functionCall) calls.push(part.functionCall);
    }
  }
  const last = events.at(-1)?.data;
  return { text, calls, finish: last?.candidates[0].finishReason, usage: last?.usageMetadata };
}

const RESULT = 'total 8\ndrwxr-xr-x 2 root root 4096 Jan  1 00:00 .\n' + 'x'.repeat(100);

beforeAll(async () => {
  fm = await startFakeModel({ slowChunkMs: 5 });
});
afterAll(async () => {
  await fm.close();
});
beforeEach(() => {
  fm.reset();
});

describe('Anthropic Messages', () => {
  it('streams an echo with the real event sequence', async () => {
    const a = await anthropic([
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>context</system-reminder>' },
          { type: 'text', text: 'hello fake model' },
        ],
      },
    ]);
    expect(a.status).toBe(200);
    const names = a.events.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    expect(names.slice(-4)).toEqual(['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(names.filter((n) => n === 'content_block_delta').length).toBeGreaterThan(1);
    const start = a.events[0]?.data.message;
    expect(start).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
    });
    expect(start.id).toMatch(/^msg_/);
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    const c = anthropicCollect(a.events);
    expect(c.text).toBe('You said: hello fake model');
    expect(c.stop).toBe('end_turn');
    expect(a.events.at(-2)?.data.usage.output_tokens).toBeGreaterThan(0);
  });

  it.each([
    ['bash', '[[bash: ls -la /tmp]]', { command: 'ls -la /tmp' }, 'Bash'],
    ['read', '[[read: /work/a.txt]]', { file_path: '/work/a.txt' }, 'Read'],
    ['write', '[[write: /work/b.txt | one\\ntwo]]', { file_path: '/work/b.txt', content: 'one\ntwo' }, 'Write'],
  ])("calls Claude Code's own %s tool with arguments streamed as input_json_delta", async (_k, prompt, input, name) => {
    const a = await anthropic([{ role: 'user', content: prompt }], { tools: asAnthropic(CLAUDE_CODE_TOOLS) });
    const c = anthropicCollect(a.events);
    expect(c.stop).toBe('tool_use');
    expect(c.tools).toHaveLength(1);
    expect(c.tools[0]).toMatchObject({ name, input });
    expect(c.tools[0]?.id).toMatch(/^toolu_/);
    expect(a.events.filter((e) => e.data.delta?.type === 'input_json_delta').length).toBeGreaterThan(2);
  });

  it('adds a thinking block with a signature when asked to think', async () => {
    const a = await anthropic([{ role: 'user', content: '[[think: pondering]] hi' }]);
    const c = anthropicCollect(a.events);
    expect(c.thinking).toBe('pondering');
    expect(a.events.some((e) => e.data.delta?.type === 'signature_delta')).toBe(true);
    expect(a.events[2]?.data.content_block.type).toBe('thinking');
  });

  it('answers a tool_result with a closing text', async () => {
    const a = await anthropic(
      [
        { role: 'user', content: '[[bash: ls]]' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: RESULT }] }],
        },
      ],
      { tools: asAnthropic(CLAUDE_CODE_TOOLS) },
    );
    const c = anthropicCollect(a.events);
    expect(c.tools).toEqual([]);
    expect(c.text).toBe(`Done: ${RESULT.slice(0, 80)}`);
    expect(c.stop).toBe('end_turn');
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ])('answers [[error: %i]] with status and type %s', async (status, type) => {
    const a = await anthropic([{ role: 'user', content: `[[error: ${status}]]` }]);
    expect(a.status).toBe(status);
    expect(a.json).toEqual({
      type: 'error',
      error: { type, message: expect.any(String) },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(a.headers.get('x-should-retry')).toBe('false');
  });

  it('carries a custom error message', async () => {
    const a = await anthropic([{ role: 'user', content: '[[error: 400 | prompt is too long]]' }]);
    expect(a.json.error.message).toBe('prompt is too long');
  });

  it('answers non-streaming requests with one message and counts tokens', async () => {
    const a = await post(
      '/v1/messages',
      {
        model: 'claude-haiku-4-5',
        messages: [{ role: 'user', content: '[[bash: pwd]]' }],
        tools: asAnthropic(CLAUDE_CODE_TOOLS),
      },
      ANTHROPIC_HEADERS,
    );
    expect(a.json).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'pwd' } }],
    });
    const n = await post(
      '/v1/messages/count_tokens',
      { model: 'x', messages: [{ role: 'user', content: 'hello' }] },
      ANTHROPIC_HEADERS,
    );
    expect(n.status).toBe(200);
    expect(n.json).toEqual({ input_tokens: expect.any(Number) });
  });

  it('logs the request with credentials redacted', async () => {
    await anthropic([{ role: 'user', content: '[[bash: echo hi]]' }], { tools: asAnthropic(CLAUDE_CODE_TOOLS) });
    expect(fm.requests).toHaveLength(1);
    const r = fm.requests[0];
    expect(r).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      query: { beta: 'true' },
      api: 'anthropic',
      model: 'claude-sonnet-4-5',
      stream: true,
      status: 200,
      done: true,
      aborted: false,
      action: { kind: 'tool', intent: 'bash', tool: 'Bash', via: 'own-tool' },
    });
    expect(r?.headers['x-api-key']).toBe('[redacted]');
    expect(r?.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(r)).not.toContain('sk-ant-secret');
    expect((r?.body as Loose).messages[0].content).toBe('[[bash: echo hi]]');
    expect(r?.framesSent).toBeGreaterThan(5);
  });
});

describe('OpenAI Chat Completions', () => {
  it('streams an echo as chunks ending in [DONE]', async () => {
    const a = await chat([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi there' }] },
    ]);
    expect(a.status).toBe(200);
    const first = a.events[0]?.data;
    expect(first).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'fake-model',
      choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
    });
    expect(first.id).toMatch(/^chatcmpl-/);
    expect(a.events.every((e) => e.event === undefined)).toBe(true);
    const c = chatCollect(a.events);
    expect(c.text).toBe('You said: hi there');
    expect(c.finish).toBe('stop');
    expect(c.usage).toBeUndefined();
    expect('usage' in first).toBe(false);
  });

  it('sends a final usage chunk when stream_options.include_usage is set', async () => {
    const a = await chat([{ role: 'user', content: 'count me' }], { stream_options: { include_usage: true } });
    const beforeDone = a.events.at(-2)?.data;
    expect(beforeDone.choices).toEqual([]);
    expect(beforeDone.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    expect(a.events[0]?.data.usage).toBeNull();
  });

  it.each([
    [
      'opencode bash',
      OPENCODE_TOOLS,
      '[[bash: echo hi]]',
      'bash',
      { command: 'echo hi', description: 'Requested by the fake model' },
    ],
    ['opencode read', OPENCODE_TOOLS, '[[read: /w/a.ts]]', 'read', { filePath: '/w/a.ts' }],
    [
      'opencode write',
      OPENCODE_TOOLS,
      '[[write: /w/new.txt]]',
      'write',
      { filePath: '/w/new.txt', content: DEFAULT_WRITE_CONTENT },
    ],
    [
      'copilot bash',
      COPILOT_TOOLS,
      '[[bash: date]]',
      'bash',
      { command: 'date', description: 'Requested by the fake model', mode: 'sync' },
    ],
    ['copilot read', COPILOT_TOOLS, '[[read: /w/a.ts]]', 'view', { path: '/w/a.ts' }],
    ['copilot write', COPILOT_TOOLS, '[[write: /w/c.txt | hello]]', 'create', { path: '/w/c.txt', file_text: 'hello' }],
  ])('%s: streams tool_calls deltas the client reassembles', async (_k, tools, prompt, name, args) => {
    const a = await chat([{ role: 'user', content: prompt }], { tools: asChat(tools) });
    const c = chatCollect(a.events);
    expect(c.finish).toBe('tool_calls');
    expect(c.calls).toEqual([{ id: expect.stringMatching(/^call_/), name, args }]);
    const argChunks = a.events.filter(
      (e) => e.data !== '[DONE]' && e.data.choices[0]?.delta.tool_calls?.[0]?.function?.arguments,
    );
    expect(argChunks.length).toBeGreaterThan(1);
    expect(a.events[0]?.data.choices[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name, arguments: '' },
    });
  });

  it('answers a role "tool" message with a closing text', async () => {
    const a = await chat(
      [
        { role: 'user', content: '[[bash: ls]]' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: RESULT },
      ],
      { tools: asChat(OPENCODE_TOOLS) },
    );
    const c = chatCollect(a.events);
    expect(c.calls).toEqual([]);
    expect(c.text).toBe(`Done: ${RESULT.slice(0, 80)}`);
    expect(c.finish).toBe('stop');
  });

  it.each([
    [400, 'invalid_request_error', null],
    [401, 'invalid_request_error', 'invalid_api_key'],
    [429, 'requests', 'rate_limit_exceeded'],
    [500, 'server_error', null],
  ])("answers [[error: %i]] in OpenAI's error shape", async (status, type, code) => {
    const a = await chat([{ role: 'user', content: `[[error: ${status}]]` }]);
    expect(a.status).toBe(status);
    expect(a.json).toEqual({ error: { message: expect.any(String), type, param: null, code } });
  });

  it('answers non-streaming requests with a chat.completion', async () => {
    const a = await post(
      '/v1/chat/completions',
      { model: 'm', messages: [{ role: 'user', content: 'plain' }] },
      OPENAI_HEADERS,
    );
    expect(a.json).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'You said: plain' }, finish_reason: 'stop' }],
    });
  });

  it('logs the request with the bearer token redacted', async () => {
    await chat([{ role: 'user', content: '[[read: /w/x]]' }], { tools: asChat(OPENCODE_TOOLS) });
    const r = fm.requests[0];
    expect(r).toMatchObject({
      path: '/v1/chat/completions',
      api: 'openai-chat',
      stream: true,
      done: true,
      action: { kind: 'tool', intent: 'read', tool: 'read', args: { filePath: '/w/x' } },
    });
    expect(r?.headers['authorization']).toBe('[redacted]');
    expect(JSON.stringify(fm.requests)).not.toContain('sk-secret');
  });
});

describe('OpenAI Responses', () => {
  it('streams an echo with typed, numbered events', async () => {
    const a = await responses([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'instructions' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello codex' }] },
    ]);
    expect(a.events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(a.events.length - 8).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(a.events.length).toBeGreaterThan(10);
    const c = responsesCollect(a.events);
    expect(c.text).toBe('You said: hello codex');
    expect(a.events[0]?.data.response).toMatchObject({
      object: 'response',
      status: 'in_progress',
      model: 'gpt-5.4',
      output: [],
    });
    expect(c.completed).toMatchObject({
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'You said: hello codex' }] },
      ],
    });
    expect(c.completed.id).toMatch(/^resp_/);
    expect(c.completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
  });

  it('accepts a plain string input', async () => {
    const a = await responses('just a string');
    expect(responsesCollect(a.events).text).toBe('You said: just a string');
  });

  it("calls codex's array-command shell, arguments streamed as function_call_arguments deltas", async () => {
    const a = await responses(
      [{ role: 'user', content: [{ type: 'input_text', text: '[[bash: echo "hi there"]]' }] }],
      { tools: asResponses(CODEX_TOOLS) },
    );
    const c = responsesCollect(a.events);
    expect(c.calls).toEqual([
      expect.objectContaining({
        type: 'function_call',
        name: 'shell',
        call_id: expect.stringMatching(/^call_/),
        arguments: { command: ['bash', '-lc', 'echo "hi there"'] },
      }),
    ]);
    const done = a.events.find((e) => e.event === 'response.function_call_arguments.done')?.data;
    expect(JSON.parse(done.arguments)).toEqual({ command: ['bash', '-lc', 'echo "hi there"'] });
    expect(a.events.filter((e) => e.event === 'response.function_call_arguments.delta').length).toBeGreaterThan(1);
    expect(c.completed.output[0]).toMatchObject({ type: 'function_call', status: 'completed', name: 'shell' });
  });

  it('reads through the shell when codex offers no read tool', async () => {
    const a = await responses([{ role: 'user', content: "[[read: /w/it's.txt]]" }], {
      tools: asResponses(CODEX_TOOLS),
    });
    const c = responsesCollect(a.events);
    expect(c.calls[0]).toMatchObject({
      name: 'shell',
      arguments: { command: ['bash', '-lc', `cat '/w/it'\\''s.txt'`] },
    });
    expect(fm.requests[0]?.action).toMatchObject({ intent: 'read', via: 'shell' });
  });

  it("writes with codex's freeform apply_patch as a custom_tool_call", async () => {
    const a = await responses([{ role: 'user', content: '[[write: /w/n.txt | a\\nb]]' }], {
      tools: asResponses(CODEX_TOOLS),
    });
    const c = responsesCollect(a.events);
    const patch = '*** Begin Patch\n*** Add File: /w/n.txt\n+a\n+b\n*** End Patch';
    expect(c.calls).toEqual([expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: patch })]);
    expect(a.events.find((e) => e.event === 'response.custom_tool_call_input.done')?.data.input).toBe(patch);
  });

  it('writes with the JSON-function apply_patch through its input property', async () => {
    const a = await responses([{ role: 'user', content: '[[write: /w/n.txt]]' }], {
      tools: asResponses(CODEX_FUNCTION_PATCH_TOOLS),
    });
    const c = responsesCollect(a.events);
    expect(c.calls[0]).toMatchObject({
      type: 'function_call',
      name: 'apply_patch',
      arguments: { input: addFilePatch('/w/n.txt', DEFAULT_WRITE_CONTENT) },
    });
  });

  it('answers a function_call_output with a closing text', async () => {
    const a = await responses(
      [
        { role: 'user', content: [{ type: 'input_text', text: '[[bash: ls]]' }] },
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["bash","-lc","ls"]}' },
        { type: 'function_call_output', call_id: 'call_1', output: RESULT },
      ],
      { tools: asResponses(CODEX_TOOLS) },
    );
    const c = responsesCollect(a.events);
    expect(c.calls).toEqual([]);
    expect(c.text).toBe(`Done: ${RESULT.slice(0, 80)}`);
  });

  it('emits a reasoning summary when asked to think', async () => {
    const a = await responses('[[think: let me see]] ok');
    const delta = a.events
      .filter((e) => e.event === 'response.reasoning_summary_text.delta')
      .map((e) => e.data.delta)
      .join('');
    expect(delta).toBe('let me see');
    expect(responsesCollect(a.events).completed.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'let me see' }],
    });
  });

  it("answers [[error: 400]] in OpenAI's error shape", async () => {
    const a = await responses('[[error: 400]]');
    expect(a.status).toBe(400);
    expect(a.json).toEqual({
      error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: null },
    });
  });

  it('logs the request', async () => {
    await responses('[[bash: true]]', { tools: asResponses(CODEX_TOOLS) });
    expect(fm.requests[0]).toMatchObject({
      api: 'openai-responses',
      model: 'gpt-5.4',
      action: { kind: 'tool', tool: 'shell', args: { command: ['bash', '-lc', 'true'] } },
    });
  });
});

describe('Gemini', () => {
  it('streams an echo as CRLF-framed SSE ending with finishReason STOP', async () => {
    const a = await gemini([{ role: 'user', parts: [{ text: 'hello gemini' }] }]);
    expect(a.status).toBe(200);
    expect(a.raw).toContain('\r\n\r\n');
    expect(a.events.length).toBeGreaterThan(1);
    const c = geminiCollect(a.events);
    expect(c.text).toBe('You said: hello gemini');
    expect(c.finish).toBe('STOP');
    expect(c.usage).toEqual({
      promptTokenCount: expect.any(Number),
      candidatesTokenCount: expect.any(Number),
      totalTokenCount: expect.any(Number),
    });
    expect(a.events[0]?.data).toMatchObject({
      candidates: [{ content: { role: 'model' }, index: 0 }],
      modelVersion: 'gemini-2.5-flash',
    });
    expect(a.events[0]?.data.candidates[0].finishReason).toBeUndefined();
  });

  it.each([
    ['bash', '[[bash: ls -a]]', 'run_shell_command', { command: 'ls -a' }],
    ['read', '[[read: /w/a.md]]', 'read_file', { absolute_path: '/w/a.md' }],
    ['write', '[[write: /w/b.md | # title]]', 'write_file', { file_path: '/w/b.md', content: '# title' }],
  ])("calls gemini-cli's own %s tool with a functionCall part", async (_k, prompt, name, args) => {
    const a = await gemini([{ role: 'user', parts: [{ text: prompt }] }], { tools: asGemini(GEMINI_CLI_TOOLS) });
    const c = geminiCollect(a.events);
    expect(c.calls).toEqual([{ name, args }]);
    expect(c.finish).toBe('STOP');
  });

  it('fills required properties of upper-case OpenAPI schemas', async () => {
    const a = await gemini([{ role: 'user', parts: [{ text: '[[bash: ls]]' }] }], {
      tools: asGemini(GEMINI_UPPERCASE_TOOLS, 'parameters'),
    });
    expect(geminiCollect(a.events).calls).toEqual([
      { name: 'run_shell_command', args: { command: 'ls', is_background: false } },
    ]);
  });

  it('answers a functionResponse with a closing text', async () => {
    const a = await gemini(
      [
        { role: 'user', parts: [{ text: '[[read: /w/a.md]]' }] },
        { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { absolute_path: '/w/a.md' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: RESULT } } }] },
      ],
      { tools: asGemini(GEMINI_CLI_TOOLS) },
    );
    const c = geminiCollect(a.events);
    expect(c.calls).toEqual([]);
    expect(c.text).toBe(`Done: ${RESULT.slice(0, 80)}`);
  });

  it("answers [[error: 400]] with Google's error shape", async () => {
    const a = await gemini([{ role: 'user', parts: [{ text: '[[error: 400]]' }] }]);
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ error: { code: 400, message: expect.any(String), status: 'INVALID_ARGUMENT' } });
    const b = await gemini([{ role: 'user', parts: [{ text: '[[error: 429]]' }] }]);
    expect(b.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });

  it('serves generateContent, countTokens and the JSON array stream', async () => {
    const g = await gemini([{ role: 'user', parts: [{ text: 'once' }] }], {}, 'generateContent');
    expect(g.json.candidates[0]).toMatchObject({ finishReason: 'STOP', content: { role: 'model' } });
    expect(g.json.candidates[0].content.parts).toEqual([{ text: 'You said: once' }]);
    const n = await gemini([{ role: 'user', parts: [{ text: 'once' }] }], {}, 'countTokens');
    expect(n.json).toEqual({ totalTokens: expect.any(Number) });
    const arr = await gemini([{ role: 'user', parts: [{ text: 'arr' }] }], {}, 'streamGenerateContent');
    expect(Array.isArray(arr.json)).toBe(true);
    expect(arr.json.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('answers structured-output side requests (next-speaker check) with schema JSON', async () => {
    const schema = {
      type: 'object',
      properties: { reasoning: { type: 'string' }, next_speaker: { type: 'string', enum: ['user', 'model'] } },
      required: ['reasoning', 'next_speaker'],
    };
    const g = await gemini(
      [{ role: 'user', parts: [{ text: 'Analyze your last response' }] }],
      { generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } },
      'generateContent',
    );
    expect(JSON.parse(g.json.candidates[0].content.parts[0].text)).toEqual({
      reasoning: expect.any(String),
      next_speaker: 'user',
    });
  });

  it('logs the request with the API key redacted from header and query', async () => {
    await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=gm-query-secret', {
      contents: [{ parts: [{ text: 'x' }] }],
    });
    await gemini([{ role: 'user', parts: [{ text: 'y' }] }]);
    expect(fm.requests.map((r) => [r.api, r.model, r.stream, r.query['alt']])).toEqual([
      ['gemini', 'gemini-2.5-pro', true, 'sse'],
      ['gemini', 'gemini-2.5-flash', true, 'sse'],
    ]);
    expect(fm.requests[0]?.query['key']).toBe('[redacted]');
    expect(fm.requests[1]?.headers['x-goog-api-key']).toBe('[redacted]');
    expect(JSON.stringify(fm.requests)).not.toMatch(/gm-(query-)?secret/);
  });
});

describe('model lists, unknown routes, bad bodies', () => {
  it("lists models in each provider's shape", async () => {
    const o = (await (await fetch(fm.url + '/v1/models')).json()) as Loose;
    expect(o.object).toBe('list');
    expect(o.data[0]).toMatchObject({ id: expect.any(String), object: 'model' });
    const an = (await (
      await fetch(fm.url + '/v1/models', { headers: { 'anthropic-version': '2023-06-01' } })
    ).json()) as Loose;
    expect(an).toMatchObject({ has_more: false, first_id: expect.any(String) });
    expect(an.data[0]).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String) });
    const g = (await (await fetch(fm.url + '/v1beta/models')).json()) as Loose;
    expect(g.models[0].name).toMatch(/^models\//);
    expect(fm.requests.map((r) => r.action.kind)).toEqual(['list', 'list', 'list']);
  });

  it('answers unknown routes 404 JSON and logs them', async () => {
    const res = await fetch(fm.url + '/v2/whatever', { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Loose).error.code).toBe('not_found');
    expect(fm.requests[0]).toMatchObject({
      api: 'unknown',
      path: '/v2/whatever',
      status: 404,
      body: { a: 1 },
      action: { kind: 'not_found' },
    });
  });

  it('answers a body that is not JSON with a 400 in the provider shape', async () => {
    const res = await fetch(fm.url + '/v1/messages', { method: 'POST', body: '{not json' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Loose).type).toBe('error');
    expect(fm.requests[0]).toMatchObject({ action: { kind: 'bad_json' }, body: '{not json' });
  });

  it('reads gzip-compressed bodies, and logs an undecodable one as bad JSON', async () => {
    const body = gzipSync(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'zipped' }] }));
    const res = await fetch(fm.url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-encoding': 'gzip' },
      body,
    });
    expect(((await res.json()) as Loose).choices[0].message.content).toBe('You said: zipped');
    const bad = await fetch(fm.url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-encoding': 'gzip' },
      body: 'not gzip',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Loose).error.type).toBe('invalid_request_error');
    expect(fm.requests.map((r) => r.action.kind)).toEqual(['echo', 'bad_json']);
  });

  it('says so in text when the agent offered no fitting tool', async () => {
    const a = await chat([{ role: 'user', content: '[[bash: ls]]' }], {
      tools: asChat([{ name: 'todowrite', schema: { type: 'object', properties: {} } }]),
    });
    expect(chatCollect(a.events).text).toBe('No bash tool among the tools offered (todowrite).');
  });
});

describe('slow streams', () => {
  it('streams exactly N paced chunks', async () => {
    const a = await chat([{ role: 'user', content: '[[slow: 4]]' }]);
    const contents = a.events.slice(1, -2).map((e) => e.data.choices[0].delta.content);
    expect(contents).toEqual(['chunk 1/4 ', 'chunk 2/4 ', 'chunk 3/4 ', 'chunk 4/4 ']);
  });

  it('notices a client that goes away mid-stream and stops writing', async () => {
    const ac = new AbortController();
    const res = await fetch(fm.url + '/v1/messages', {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: '[[slow: 10000]]' }] }),
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    await fm.waitFor((r) => r.framesSent >= 6);
    ac.abort();
    const r = await fm.waitFor((x) => x.aborted);
    expect(r.done).toBe(false);
    expect(r.action).toMatchObject({ kind: 'slow', chunks: 10000 });
    expect(r.framesSent).toBeLessThan(10000);
  });
});

describe('tool choice and arguments', () => {
  it('never picks look-alike tools', () => {
    expect(pickTool('bash', CLAUDE_CODE_TOOLS)?.name).toBe('Bash');
    expect(
      pickTool(
        'bash',
        CLAUDE_CODE_TOOLS.filter((t) => t.name !== 'Bash'),
      ),
    ).toBeUndefined();
    expect(pickTool('read', GEMINI_CLI_TOOLS)?.name).toBe('read_file');
    expect(
      pickTool(
        'read',
        GEMINI_CLI_TOOLS.filter((t) => t.name !== 'read_file'),
      ),
    ).toBeUndefined();
    expect(pickTool('read', CODEX_TOOLS)).toBeUndefined();
    expect(
      pickTool(
        'write',
        COPILOT_TOOLS.filter((t) => t.name !== 'create' && t.name !== 'edit'),
      ),
    ).toBeUndefined();
  });

  it('writes through an edit tool with an empty old string when no write tool exists', () => {
    const plan = planToolCall(
      { intent: 'write', target: '/w/e.txt', content: 'x' },
      OPENCODE_TOOLS.filter((t) => t.name !== 'write'),
    );
    expect(plan).toMatchObject({ tool: 'edit', args: { filePath: '/w/e.txt', oldString: '', newString: 'x' } });
  });

  it('picks the view/create command of a text-editor style tool', () => {
    const editor = [
      {
        name: 'str_replace_based_edit_tool',
        schema: {
          type: 'object',
          properties: {
            command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert'] },
            path: { type: 'string' },
            file_text: { type: 'string' },
          },
          required: ['command', 'path'],
        },
      },
    ];
    expect(planToolCall({ intent: 'read', target: '/a' }, editor)?.args).toEqual({ command: 'view', path: '/a' });
    expect(planToolCall({ intent: 'write', target: '/a', content: 'c' }, editor)?.args).toEqual({
      command: 'create',
      path: '/a',
      file_text: 'c',
    });
  });
});

describe('server lifecycle', () => {
  it('rejects a pending waitFor when closed, and reset() forgets requests', async () => {
    const other = await startFakeModel();
    await fetch(other.url + '/v1/models');
    expect(other.requests).toHaveLength(1);
    other.reset();
    expect(other.requests).toHaveLength(0);
    const pending = other.waitFor((r) => r.path === '/never');
    await other.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});
