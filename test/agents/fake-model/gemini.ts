/** Gemini API: POST /v1beta/models/<m>:streamGenerateContent?alt=sse, :generateContent, :countTokens. */
import { isObj, objs, resultText, textsOf, userText } from './common.js';
import { roughTokens, textPieces } from './steer.js';
import type { Action, Conversation, IdGen, Json, Reply, SseFrame, ToolSpec } from './types.js';

export function geminiConversation(body: Json): Conversation {
  const tools: ToolSpec[] = [];
  for (const group of objs(body['tools'])) {
    for (const fd of objs(group['functionDeclarations'] ?? group['function_declarations'])) {
      if (typeof fd['name'] !== 'string') continue;
      const schema = fd['parametersJsonSchema'] ?? fd['parameters'];
      tools.push({ name: fd['name'], ...(isObj(schema) ? { schema } : {}) });
    }
  }
  const contents = objs(body['contents']);
  const conv: Conversation = { lastUserText: '', tools };
  const responses = objs(contents.at(-1)?.['parts'])
    .map((p) => p['functionResponse'])
    .filter(isObj);
  if (responses.length > 0) conv.toolResult = responses.map((r) => resultText(r['response'] ?? '')).join('\n');
  // Tool results also come as role "user": the prompt is the last user content with text.
  const lastUser = [...contents]
    .reverse()
    .find((c) => (c['role'] ?? 'user') === 'user' && textsOf(c['parts']).length > 0);
  if (lastUser) conv.lastUserText = userText(textsOf(lastUser['parts']));
  const gc = body['generationConfig'] ?? body['generation_config'];
  if (isObj(gc) && (gc['responseMimeType'] ?? gc['response_mime_type']) === 'application/json') {
    const schema = gc['responseJsonSchema'] ?? gc['responseSchema'] ?? gc['response_schema'];
    conv.jsonSchema = isObj(schema) ? schema : {};
  }
  return conv;
}

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiError(status: number, message: string): Reply {
  return { status, json: { error: { code: status, message, status: STATUS[status] ?? 'UNKNOWN' } } };
}

/** Parts of the answer: thought text, then the text pieces or one whole functionCall. */
function partsOf(a: Action): Json[][] {
  const chunks: Json[][] = [];
  if ('thinking' in a && a.thinking !== undefined) chunks.push([{ text: a.thinking, thought: true }]);
  if (a.kind === 'tool') {
    // Gemini never streams arguments: the call arrives whole in one chunk.
    chunks.push([{ functionCall: { name: a.tool, args: typeof a.args === 'string' ? { input: a.args } : a.args } }]);
  } else if ('text' in a) {
    for (const t of textPieces(a)) chunks.push([{ text: t }]);
  }
  return chunks;
}

export function geminiReply(a: Action, body: Json, model: string, method: string, sse: boolean, ids: IdGen): Reply {
  if (a.kind === 'error') return geminiError(a.status, a.message);
  const chunks = partsOf(a);
  const prompt = roughTokens(body['contents']);
  const out = roughTokens(chunks);
  const responseId = ids('fake-resp-');
  const doneUsage = { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out };
  const response = (parts: Json[], last: boolean): Json => ({
    candidates: [{ content: { parts, role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    usageMetadata: last ? doneUsage : { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: model,
    responseId,
  });
  if (method === 'generateContent') {
    // A whole answer carries its text in one part, not in the streaming pieces.
    const parts = chunks.flat().filter((p) => p['text'] === undefined || p['thought'] === true);
    if (a.kind !== 'tool' && 'text' in a) parts.push({ text: a.text });
    return { status: 200, json: response(parts, true) };
  }
  const all = chunks.map((parts, i) => response(parts, i === chunks.length - 1));
  // Without alt=sse the REST API streams one JSON array.
  if (!sse) return { status: 200, json: all };
  const pace = a.kind === 'slow';
  const frames: SseFrame[] = all.map((data) => ({ data, pace }));
  return { status: 200, sse: frames, eol: '\r\n' };
}

export function geminiCountTokens(body: Json): Reply {
  return { status: 200, json: { totalTokens: roughTokens(body['contents'] ?? body) } };
}

export function geminiModels(models: string[]): Reply {
  return {
    status: 200,
    json: {
      models: models.map((m) => ({
        name: `models/${m}`,
        version: '001',
        displayName: m,
        inputTokenLimit: 1_048_576,
        outputTokenLimit: 65_536,
        supportedGenerationMethods: ['generateContent', 'countTokens'],
      })),
    },
  };
}
