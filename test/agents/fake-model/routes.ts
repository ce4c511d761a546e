/** Maps a request (method, path suffix, body) to its API and the reply the fake model gives. */
import type { IncomingMessage } from 'node:http';
import {
  anthropicConversation,
  anthropicCountTokens,
  anthropicError,
  anthropicModels,
  anthropicReply,
} from './anthropic.js';
import { geminiConversation, geminiCountTokens, geminiError, geminiModels, geminiReply } from './gemini.js';
import { chatConversation, chatReply, openaiError } from './openai-chat.js';
import { responsesConversation, responsesReply } from './openai-responses.js';
import { decide } from './steer.js';
import type { ApiName, IdGen, Json, LoggedRequest, Reply } from './types.js';

export interface Route {
  api: ApiName;
  stream: boolean;
  model?: string;
  reply(ids: IdGen): Reply;
  /** The provider's error shape, for bodies that are not JSON. */
  error(status: number, message: string, ids: IdGen): Reply;
  action: LoggedRequest['action'];
}

const GEMINI_PATH = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

export function route(
  method: string,
  path: string,
  query: URLSearchParams,
  headers: IncomingMessage['headers'],
  body: Json,
  models: string[],
): Route | undefined {
  const model = typeof body['model'] === 'string' ? body['model'] : undefined;
  const base = { stream: body['stream'] === true, ...(model !== undefined ? { model } : {}) };
  if (method === 'GET' && path.endsWith('/models')) {
    const api: ApiName = 'models';
    const reply = path.includes('v1beta')
      ? geminiModels(models)
      : headers['anthropic-version']
        ? anthropicModels(models)
        : {
            status: 200,
            json: {
              object: 'list',
              data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })),
            },
          };
    return {
      api,
      stream: false,
      reply: () => reply,
      error: (s, m, ids) => openaiError(s, m, ids),
      action: { kind: 'list' },
    };
  }
  if (method !== 'POST') return undefined;
  if (path.endsWith('/messages/count_tokens')) {
    return {
      api: 'anthropic',
      ...base,
      reply: () => anthropicCountTokens(body),
      error: anthropicError,
      action: { kind: 'count' },
    };
  }
  if (path.endsWith('/messages')) {
    const action = decide(anthropicConversation(body));
    return {
      api: 'anthropic',
      ...base,
      reply: (ids) => anthropicReply(action, body, ids),
      error: anthropicError,
      action,
    };
  }
  if (path.endsWith('/chat/completions')) {
    const action = decide(chatConversation(body));
    return { api: 'openai-chat', ...base, reply: (ids) => chatReply(action, body, ids), error: openaiError, action };
  }
  if (path.endsWith('/responses')) {
    const action = decide(responsesConversation(body));
    return {
      api: 'openai-responses',
      ...base,
      reply: (ids) => responsesReply(action, body, ids),
      error: openaiError,
      action,
    };
  }
  const g = GEMINI_PATH.exec(path);
  if (g) {
    const [, gModel = 'gemini-fake', verb = ''] = g;
    const error = (s: number, m: string): Reply => geminiError(s, m);
    const common = { api: 'gemini' as const, model: gModel, error };
    if (verb === 'countTokens')
      return { ...common, stream: false, reply: () => geminiCountTokens(body), action: { kind: 'count' } };
    const action = decide(geminiConversation(body));
    const stream = verb === 'streamGenerateContent';
    return {
      ...common,
      stream,
      reply: (ids) => geminiReply(action, body, gModel, verb, query.get('alt') === 'sse', ids),
      action,
    };
  }
  return undefined;
}
