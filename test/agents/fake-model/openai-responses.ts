/** OpenAI Responses API: POST /v1/responses (typed SSE events with sequence_number, or JSON). */
import { isObj, nowSeconds, objs, resultText, str, textsOf, userText } from './common.js';
import { openaiError } from './openai-chat.js';
import { roughTokens, splitRaw, textPieces } from './steer.js';
import type { Action, Conversation, IdGen, Json, Reply, SseFrame, ToolSpec } from './types.js';

const RESULT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

export function responsesConversation(body: Json): Conversation {
  const tools: ToolSpec[] = [];
  for (const t of objs(body['tools'])) {
    const name = str(t['name']);
    if (name === undefined) continue;
    if (t['type'] === 'function') tools.push({ name, ...(isObj(t['parameters']) ? { schema: t['parameters'] } : {}) });
    else if (t['type'] === 'custom') tools.push({ name, freeform: true });
  }
  const conv: Conversation = { lastUserText: '', tools };
  const input = body['input'];
  if (typeof input === 'string') {
    conv.lastUserText = input;
  } else {
    const items = objs(input);
    const trailing: Json[] = [];
    for (let i = items.length - 1; i >= 0 && RESULT_TYPES.has(String(items[i]?.['type'])); i--)
      trailing.unshift(items[i] as Json);
    if (trailing.length > 0) conv.toolResult = trailing.map((it) => resultText(it['output'] ?? '')).join('\n');
    const lastUser = [...items]
      .reverse()
      .find((it) => it['role'] === 'user' && (it['type'] === undefined || it['type'] === 'message'));
    if (lastUser) conv.lastUserText = userText(textsOf(lastUser['content']));
  }
  const text = isObj(body['text']) ? body['text'] : undefined;
  const fmt = text && isObj(text['format']) ? text['format'] : undefined;
  if (fmt?.['type'] === 'json_schema' && isObj(fmt['schema'])) conv.jsonSchema = fmt['schema'];
  return conv;
}

/** The output items of the answer, completed. */
function itemsOf(a: Action, ids: IdGen): Json[] {
  const items: Json[] = [];
  if ('thinking' in a && a.thinking !== undefined) {
    items.push({ id: ids('rs_fake_'), type: 'reasoning', summary: [{ type: 'summary_text', text: a.thinking }] });
  }
  if (a.kind === 'tool') {
    const callId = ids('call_fake_');
    items.push(
      a.freeform
        ? {
            id: ids('ctc_fake_'),
            type: 'custom_tool_call',
            status: 'completed',
            call_id: callId,
            name: a.tool,
            input: a.args,
          }
        : {
            id: ids('fc_fake_'),
            type: 'function_call',
            status: 'completed',
            call_id: callId,
            name: a.tool,
            arguments: JSON.stringify(a.args),
          },
    );
  } else if ('text' in a) {
    items.push({
      id: ids('msg_fake_'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: a.text, annotations: [], logprobs: [] }],
    });
  }
  return items;
}

export function responsesReply(a: Action, body: Json, ids: IdGen): Reply {
  if (a.kind === 'error') return openaiError(a.status, a.message, ids);
  const items = itemsOf(a, ids);
  const inputTokens = roughTokens(body['input']);
  const outputTokens = roughTokens(items);
  const base = {
    id: ids('resp_fake_'),
    object: 'response',
    created_at: nowSeconds(),
    error: null,
    incomplete_details: null,
    instructions: body['instructions'] ?? null,
    model: str(body['model']) ?? 'gpt-fake',
    parallel_tool_calls: body['parallel_tool_calls'] ?? true,
    previous_response_id: body['previous_response_id'] ?? null,
    tool_choice: body['tool_choice'] ?? 'auto',
    tools: body['tools'] ?? [],
  };
  const completed = {
    ...base,
    status: 'completed',
    output: items,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
  if (body['stream'] !== true) return { status: 200, json: completed };

  let seq = 0;
  const frames: SseFrame[] = [];
  const ev = (type: string, data: Json, pace = false): void => {
    frames.push({ event: type, data: { type, sequence_number: seq++, ...data }, pace });
  };
  const inProgress = { ...base, status: 'in_progress', output: [], usage: null };
  ev('response.created', { response: inProgress });
  ev('response.in_progress', { response: inProgress });
  items.forEach((item, output_index) => {
    const item_id = item['id'];
    if (item['type'] === 'reasoning') {
      const text = String((item['summary'] as Json[])[0]?.['text'] ?? '');
      ev('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      ev('response.reasoning_summary_part.added', {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      for (const d of splitRaw(text, 2))
        ev('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: d });
      ev('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text });
      ev('response.reasoning_summary_part.done', {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text },
      });
    } else if (item['type'] === 'function_call') {
      const args = String(item['arguments']);
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const d of splitRaw(args, 3))
        ev('response.function_call_arguments.delta', { item_id, output_index, delta: d });
      ev('response.function_call_arguments.done', { item_id, output_index, name: item['name'], arguments: args });
    } else if (item['type'] === 'custom_tool_call') {
      const input = String(item['input']);
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } });
      for (const d of splitRaw(input, 3))
        ev('response.custom_tool_call_input.delta', { item_id, output_index, delta: d });
      ev('response.custom_tool_call_input.done', { item_id, output_index, input });
    } else {
      const text = 'text' in a ? a.text : '';
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { item_id, output_index, content_index: 0, part });
      if ('text' in a) {
        for (const d of textPieces(a)) {
          ev(
            'response.output_text.delta',
            { item_id, output_index, content_index: 0, delta: d, logprobs: [] },
            a.kind === 'slow',
          );
        }
      }
      ev('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] });
      ev('response.content_part.done', { item_id, output_index, content_index: 0, part: { ...part, text } });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response: completed });
  return { status: 200, sse: frames };
}
