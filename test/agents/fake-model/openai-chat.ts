/** OpenAI Chat Completions: POST /v1/chat/completions (SSE chunks + [DONE], or JSON). */
import { isObj, nowSeconds, objs, resultText, str, textsOf, userText } from './common.js';
import { roughTokens, splitRaw, textPieces } from './steer.js';
import type { Action, Conversation, IdGen, Json, Reply, SseFrame, ToolSpec } from './types.js';

export function chatConversation(body: Json): Conversation {
  const msgs = objs(body['messages']);
  const tools: ToolSpec[] = [];
  for (const t of objs(body['tools'])) {
    const fn = isObj(t['function']) ? t['function'] : undefined;
    if (fn && typeof fn['name'] === 'string') {
      tools.push({ name: fn['name'], ...(isObj(fn['parameters']) ? { schema: fn['parameters'] } : {}) });
    }
  }
  const conv: Conversation = { lastUserText: '', tools };
  // Parallel tool calls give several trailing `tool` messages: all are the result.
  const trailing: Json[] = [];
  for (let i = msgs.length - 1; i >= 0 && msgs[i]?.['role'] === 'tool'; i--) trailing.unshift(msgs[i] as Json);
  if (trailing.length > 0) conv.toolResult = trailing.map((m) => resultText(m['content'] ?? '')).join('\n');
  const lastUser = [...msgs].reverse().find((m) => m['role'] === 'user');
  if (lastUser) conv.lastUserText = userText(textsOf(lastUser['content']));
  const rf = isObj(body['response_format']) ? body['response_format'] : undefined;
  if (rf?.['type'] === 'json_schema' && isObj(rf['json_schema']) && isObj(rf['json_schema']['schema'])) {
    conv.jsonSchema = rf['json_schema']['schema'];
  }
  return conv;
}

/** OpenAI's error shape, shared by Chat Completions and Responses. */
const ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

export function openaiError(status: number, message: string, ids: IdGen): Reply {
  const e = ERRORS[status] ?? { type: 'server_error', code: null };
  return {
    status,
    headers: { 'x-request-id': ids('req_fake_'), 'x-should-retry': 'false' },
    json: { error: { message, type: e.type, param: null, code: e.code } },
  };
}

export function chatReply(a: Action, body: Json, ids: IdGen): Reply {
  if (a.kind === 'error') return openaiError(a.status, a.message, ids);
  const model = str(body['model']) ?? 'gpt-fake';
  const id = ids('chatcmpl-fake');
  const created = nowSeconds();
  const finish = a.kind === 'tool' ? 'tool_calls' : 'stop';
  const toolCall =
    a.kind === 'tool'
      ? { id: ids('call_fake_'), name: a.tool, arguments: typeof a.args === 'string' ? a.args : JSON.stringify(a.args) }
      : undefined;
  const text = 'text' in a ? a.text : null;
  const thinking = 'thinking' in a ? a.thinking : undefined;
  const promptTokens = roughTokens(body['messages']);
  const completionTokens = roughTokens([text, toolCall]);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };

  if (body['stream'] !== true) {
    const message: Json = { role: 'assistant', content: text, refusal: null };
    if (thinking !== undefined) message['reasoning_content'] = thinking;
    if (toolCall)
      message['tool_calls'] = [
        { id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } },
      ];
    return {
      status: 200,
      json: {
        id,
        object: 'chat.completion',
        created,
        model,
        system_fingerprint: 'fp_fake',
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
      },
    };
  }
  const so = isObj(body['stream_options']) ? body['stream_options'] : {};
  const withUsage = so['include_usage'] === true;
  const chunk = (delta: Json, finishReason: string | null = null, pace = false): SseFrame => ({
    pace,
    data: {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(withUsage ? { usage: null } : {}),
    },
  });
  const frames: SseFrame[] = [];
  const header = toolCall
    ? {
        tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: '' } }],
      }
    : undefined;
  if (header && thinking === undefined) {
    // OpenAI opens a tool call with the role and the call's id and name in one chunk.
    frames.push(chunk({ role: 'assistant', content: null, ...header }));
  } else {
    frames.push(chunk({ role: 'assistant', content: toolCall ? null : '', refusal: null }));
    // Reasoning deltas (DeepSeek/vLLM `reasoning_content`, read by openai-compatible clients).
    if (thinking !== undefined) for (const t of splitRaw(thinking, 2)) frames.push(chunk({ reasoning_content: t }));
    if (header) frames.push(chunk(header));
  }
  if (toolCall) {
    for (const p of splitRaw(toolCall.arguments, 3))
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
  } else if ('text' in a) {
    for (const t of textPieces(a)) frames.push(chunk({ content: t }, null, a.kind === 'slow'));
  }
  frames.push(chunk({}, finish));
  if (withUsage) {
    frames.push({
      data: { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage },
    });
  }
  frames.push({ data: '[DONE]' });
  return { status: 200, sse: frames };
}
