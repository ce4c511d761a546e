/** Anthropic Messages API: POST /v1/messages (SSE or JSON), /v1/messages/count_tokens. */
import { isObj, objs, resultText, str, textsOf, userText } from './common.js';
import { roughTokens, splitRaw, textPieces } from './steer.js';
import type { Action, Conversation, IdGen, Json, Reply, SseFrame, ToolSpec } from './types.js';

export function anthropicConversation(body: Json): Conversation {
  const msgs = objs(body['messages']);
  const tools: ToolSpec[] = objs(body['tools'])
    .filter((t) => typeof t['name'] === 'string')
    .map((t) => ({ name: t['name'] as string, ...(isObj(t['input_schema']) ? { schema: t['input_schema'] } : {}) }));
  const conv: Conversation = { lastUserText: '', tools };
  const last = msgs.at(-1);
  const results = last?.['role'] === 'user' ? objs(last['content']).filter((b) => b['type'] === 'tool_result') : [];
  if (results.length > 0) conv.toolResult = results.map((b) => resultText(b['content'] ?? '')).join('\n');
  const lastUser = [...msgs].reverse().find((m) => m['role'] === 'user');
  if (lastUser) conv.lastUserText = userText(textsOf(lastUser['content']));
  // Structured outputs (beta `output_format`, GA `output_config.format`).
  const fmt = isObj(body['output_format'])
    ? body['output_format']
    : isObj(body['output_config']) && isObj(body['output_config']['format'])
      ? body['output_config']['format']
      : undefined;
  if (fmt && isObj(fmt['schema'])) conv.jsonSchema = fmt['schema'];
  return conv;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicError(status: number, message: string, ids: IdGen): Reply {
  const requestId = ids('req_fake_');
  return {
    status,
    // x-should-retry: the SDKs honour it, so a steered error fails fast instead of retrying.
    headers: { 'request-id': requestId, 'x-should-retry': 'false' },
    json: { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: requestId },
  };
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

function blocksOf(a: Action, ids: IdGen): Block[] {
  const out: Block[] = [];
  if ('thinking' in a && a.thinking !== undefined) {
    out.push({ type: 'thinking', thinking: a.thinking, signature: ids('sig_fake_') });
  }
  if (a.kind === 'tool') {
    // Anthropic has no freeform tools; a string input would be wrapped by the agent's schema anyway.
    out.push({
      type: 'tool_use',
      id: ids('toolu_fake_'),
      name: a.tool,
      input: typeof a.args === 'string' ? { input: a.args } : a.args,
    });
  } else if ('text' in a) {
    out.push({ type: 'text', text: a.text });
  }
  return out;
}

export function anthropicReply(a: Action, body: Json, ids: IdGen): Reply {
  if (a.kind === 'error') return anthropicError(a.status, a.message, ids);
  const model = str(body['model']) ?? 'claude-fake';
  const blocks = blocksOf(a, ids);
  const stopReason = a.kind === 'tool' ? 'tool_use' : 'end_turn';
  const inputTokens = roughTokens(body['messages']);
  const outputTokens = roughTokens(blocks);
  const id = ids('msg_fake_');
  if (body['stream'] !== true) {
    return {
      status: 200,
      json: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    };
  }
  const ev = (event: string, data: Json, pace = false): SseFrame => ({ event, data: { type: event, ...data }, pace });
  const frames: SseFrame[] = [
    ev('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    }),
    ev('ping', {}),
  ];
  blocks.forEach((b, index) => {
    if (b.type === 'thinking') {
      frames.push(
        ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      for (const t of splitRaw(b.thinking, 2))
        frames.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: t } }));
      frames.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } }));
    } else if (b.type === 'text') {
      frames.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const t of textPieces(a as Extract<Action, { text: string }>)) {
        frames.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: t } }, a.kind === 'slow'));
      }
    } else {
      frames.push(
        ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }),
      );
      // The real API opens with an empty partial_json, then cuts the JSON anywhere.
      for (const p of ['', ...splitRaw(JSON.stringify(b.input), 3)]) {
        frames.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
      }
    }
    frames.push(ev('content_block_stop', { index }));
  });
  frames.push(
    ev('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
    ev('message_stop', {}),
  );
  return { status: 200, sse: frames };
}

export function anthropicCountTokens(body: Json): Reply {
  return { status: 200, json: { input_tokens: roughTokens([body['system'], body['messages'], body['tools']]) } };
}

/** GET /v1/models when the caller is an Anthropic client (it sends `anthropic-version`). */
export function anthropicModels(models: string[]): Reply {
  const data = models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' }));
  return {
    status: 200,
    json: { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
  };
}
