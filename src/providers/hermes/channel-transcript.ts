/**
 * Hermes' `messages` rows (schema 21) as Talaria reads them, and as thread entries: what the web
 * shows read-only and what a "continue in Talaria" seeds a new session with (the same road as a
 * stored session's continue: harness/workspace.ts branchSession, thread/seed.ts). Pure.
 *
 * The row format is Hermes' own (hermes_state.py:3748 `_CONTENT_JSON_PREFIX`: list or dict content
 * is stored as "\x00json:" + JSON; `tool_calls` is a JSON list of OpenAI-style calls). A shape this
 * does not know is said ("content of an unknown shape"), never guessed at.
 */
import type { Entry, ToolCallEntry } from '../../thread/types.js';

export interface ChannelToolCall {
  id: string;
  name: string;
  /** The arguments as the model sent them (a JSON text, usually). */
  arguments: string;
}

export interface ChannelMessage {
  /** The Hermes session row it belongs to (the root or one of its continuations). */
  sessionId: string;
  /** `messages.id` (insertion order). */
  id: number;
  role: string;
  text: string;
  /** Epoch ms. */
  timestamp: number;
  toolCalls?: ChannelToolCall[];
  toolCallId?: string;
  toolName?: string;
  reasoning?: string;
  finishReason?: string;
  /** What could not be read as text (an image part, a content shape Talaria does not know). */
  note?: string;
}

const JSON_PREFIX = '\u0000json:';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `messages.content` → text, and a note for what is not text. */
export function decodeContent(raw: unknown): { text: string; note?: string } {
  if (raw === null || raw === undefined) return { text: '' };
  if (typeof raw === 'number') return { text: String(raw) };
  if (typeof raw !== 'string') return { text: '', note: 'content of an unknown shape' };
  if (!raw.startsWith(JSON_PREFIX)) return { text: raw };
  let v: unknown;
  try {
    v = JSON.parse(raw.slice(JSON_PREFIX.length));
  } catch {
    return { text: '', note: 'content of an unknown shape' };
  }
  // Multimodal parts ([{type: 'text', text}, {type: 'image_url', …}]), as the OpenAI API has them.
  if (!Array.isArray(v)) return { text: '', note: 'content of an unknown shape' };
  const texts: string[] = [];
  const other = new Map<string, number>();
  for (const p of v) {
    if (isObj(p) && p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
    else {
      const t = isObj(p) && typeof p.type === 'string' ? p.type : 'unknown';
      other.set(t, (other.get(t) ?? 0) + 1);
    }
  }
  const note = [...other].map(([t, n]) => `${n} ${t} part${n > 1 ? 's' : ''}`).join(', ');
  return note ? { text: texts.join('\n'), note: `not shown: ${note}` } : { text: texts.join('\n') };
}

/** `messages.tool_calls` → calls; undefined when it is not the list of calls Hermes 0.18.2 writes. */
export function parseToolCalls(raw: unknown): ChannelToolCall[] | undefined {
  let v: unknown = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(v)) return undefined;
  const out: ChannelToolCall[] = [];
  for (const c of v) {
    const f = isObj(c) ? c.function : undefined;
    if (!isObj(c) || !isObj(f) || typeof f.name !== 'string') return undefined;
    const id = typeof c.id === 'string' ? c.id : typeof c.call_id === 'string' ? c.call_id : '';
    out.push({
      id,
      name: f.name,
      arguments: typeof f.arguments === 'string' ? f.arguments : JSON.stringify(f.arguments ?? {}),
    });
  }
  return out;
}

const KINDS: Record<string, string> = {
  read_file: 'read',
  search_files: 'search',
  write_file: 'edit',
  patch: 'edit',
  terminal: 'execute',
  web_search: 'fetch',
  web_extract: 'fetch',
};

function argsSummary(args: string): { line: string; input: unknown } {
  try {
    const v: unknown = JSON.parse(args);
    if (isObj(v)) {
      const first = Object.values(v).find((x) => typeof x === 'string') as string | undefined;
      return { line: first ? first.replace(/\s+/g, ' ').slice(0, 80) : '', input: v };
    }
    return { line: '', input: v };
  } catch {
    return { line: args.replace(/\s+/g, ' ').slice(0, 80), input: args };
  }
}

/**
 * The messages as thread entries: user and assistant messages, reasoning as thoughts, each tool
 * call with its result (a call no result answered is `cancelled`: the run ended without it).
 */
export function channelEntries(messages: readonly ChannelMessage[]): Entry[] {
  const out: Entry[] = [];
  const calls = new Map<string, number>();
  let n = 0;
  const id = () => `e${++n}`;
  for (const m of messages) {
    if (m.role === 'user') out.push({ id: id(), kind: 'user_message', text: m.text, blocks: [] });
    else if (m.role === 'assistant') {
      if (m.reasoning) out.push({ id: id(), kind: 'thought', text: m.reasoning, blocks: [] });
      if (m.text.trim()) out.push({ id: id(), kind: 'assistant_message', text: m.text, blocks: [] });
      for (const c of m.toolCalls ?? []) {
        const a = argsSummary(c.arguments);
        const e: ToolCallEntry = {
          id: id(),
          kind: 'tool_call',
          toolCallId: c.id || `hermes-${m.id}-${calls.size}`,
          title: a.line ? `${c.name}: ${a.line}` : c.name,
          toolKind: KINDS[c.name] ?? 'other',
          status: 'cancelled',
          content: [],
          locations: [],
          rawInput: a.input,
        };
        calls.set(e.toolCallId, out.length);
        out.push(e);
      }
    } else if (m.role === 'tool') {
      const at = m.toolCallId !== undefined ? calls.get(m.toolCallId) : undefined;
      const result = { type: 'content', content: { type: 'text', text: m.text } };
      if (at !== undefined) {
        const e = out[at] as ToolCallEntry;
        out[at] = { ...e, status: 'completed', content: [...e.content, result], rawOutput: m.text };
      } else
        out.push({
          id: id(),
          kind: 'tool_call',
          toolCallId: m.toolCallId ?? `hermes-${m.id}`,
          title: m.toolName ?? 'tool',
          toolKind: KINDS[m.toolName ?? ''] ?? 'other',
          status: 'completed',
          content: [result],
          locations: [],
          rawOutput: m.text,
        });
    } else if (m.text.trim())
      out.push({ id: id(), kind: 'notice', level: 'info', code: 'hermes_message', text: `${m.role}: ${m.text}` });
    if (m.note) out.push({ id: id(), kind: 'notice', level: 'warning', code: 'hermes_content_unknown', text: m.note });
  }
  return out;
}
