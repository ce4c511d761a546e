/**
 * The fake model's "brain": reads steering tokens from the last user message and decides what
 * to answer. API-independent; each API module turns the Action into its own wire shapes.
 *
 * Tokens (first action token wins; `think` adds a reasoning block to any text answer):
 *   [[bash: CMD]]  [[read: /abs/path]]  [[write: /abs/path]]  [[write: /abs/path | content]]
 *   [[error: 400]]  [[error: 429 | message]]  [[slow: N]]  [[think: text]]
 * A literal `\n` in write content becomes a newline. Tokens end at the first `]]`.
 */
import { objectFromSchema, planToolCall } from './tools.js';
import type { Action, Conversation } from './types.js';

export const DEFAULT_WRITE_CONTENT = 'Written by the fake model.\n';
const TOKEN = /\[\[\s*(bash|read|write|error|slow|think)\s*:\s*([\s\S]*?)\s*\]\]/gi;

export interface SteerToken {
  name: 'bash' | 'read' | 'write' | 'error' | 'slow' | 'think';
  value: string;
}

export function parseTokens(text: string): SteerToken[] {
  return [...text.matchAll(TOKEN)].map((m) => ({
    name: (m[1] ?? '').toLowerCase() as SteerToken['name'],
    value: m[2] ?? '',
  }));
}

/** Default messages, worded like the providers' own. */
function errorMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Fake model: invalid request (steered by [[error: 400]])';
    case 401:
      return 'Fake model: invalid API key';
    case 403:
      return 'Fake model: permission denied';
    case 404:
      return 'Fake model: model not found';
    case 429:
      return 'Fake model: rate limit exceeded';
    case 529:
      return 'Fake model: overloaded';
    default:
      return `Fake model: server error ${status}`;
  }
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s.trim(), undefined] : [s.slice(0, i).trim(), s.slice(i + 1).trim()];
}

export function decide(conv: Conversation): Action {
  const tokens = parseTokens(conv.lastUserText);
  const think = tokens.find((t) => t.name === 'think')?.value;
  const withThinking = <A extends Action>(a: A): A => (think !== undefined ? { ...a, thinking: think } : a);

  if (conv.toolResult !== undefined) {
    return withThinking({ kind: 'final', text: `Done: ${conv.toolResult.slice(0, 80)}` });
  }
  const main = tokens.find((t) => t.name !== 'think');
  if (main?.name === 'error') {
    const [code, msg] = splitOnce(main.value, '|');
    const n = Number.parseInt(code, 10);
    const status = Number.isInteger(n) && n >= 400 && n <= 599 ? n : 400;
    return { kind: 'error', status, message: msg || errorMessage(status) };
  }
  // Structured-output side requests (gemini's next-speaker check, titles...) get schema JSON.
  if (conv.jsonSchema) {
    return { kind: 'json', text: JSON.stringify(objectFromSchema(conv.jsonSchema)) };
  }
  if (main && (main.name === 'bash' || main.name === 'read' || main.name === 'write')) {
    const [target, rawContent] = main.name === 'write' ? splitOnce(main.value, '|') : [main.value, undefined];
    const content = rawContent === undefined ? DEFAULT_WRITE_CONTENT : rawContent.replace(/\\n/g, '\n');
    const plan = planToolCall({ intent: main.name, target, content }, conv.tools);
    if (plan) return withThinking(plan);
    const names = conv.tools.map((t) => t.name).join(', ') || 'none';
    return withThinking({ kind: 'echo', text: `No ${main.name} tool among the tools offered (${names}).` });
  }
  if (main?.name === 'slow') {
    const n = Number.parseInt(main.value, 10);
    const chunks = Number.isInteger(n) ? Math.max(1, Math.min(n, 10_000)) : 10;
    const text = Array.from({ length: chunks }, (_, i) => `chunk ${i + 1}/${chunks} `).join('');
    return withThinking({ kind: 'slow', chunks, text });
  }
  return withThinking({ kind: 'echo', text: `You said: ${conv.lastUserText.trim()}` });
}

/** Splits text into about `n` pieces (at least one), at word boundaries when possible. */
export function splitText(text: string, n: number): string[] {
  if (text === '') return [''];
  const words = text.match(/\S+\s*|\s+/g) ?? [text];
  const per = Math.max(1, Math.ceil(words.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

/** Splits a string into `n` raw pieces (tool-call JSON streams cut mid-token, like the real APIs). */
export function splitRaw(s: string, n: number): string[] {
  if (s === '') return [''];
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** Text pieces of a text action: slow actions stream exactly one chunk per piece. */
export function textPieces(a: Extract<Action, { text: string }>): string[] {
  if (a.kind === 'slow') return a.text.match(/chunk \S+ /g) ?? [a.text];
  return splitText(a.text, 4);
}

/** A rough token count (4 chars per token), for usage fields. */
export function roughTokens(x: unknown): number {
  const s = typeof x === 'string' ? x : JSON.stringify(x ?? '');
  return Math.max(1, Math.ceil(s.length / 4));
}
