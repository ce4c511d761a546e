/**
 * Pre-serialized `session/update` frames for the flood agent. Each frame is serialized once, up
 * front, and split around its send-time stamp, so sending costs one string concatenation:
 *
 *   ENVELOPE_HEAD + sessionId + ENVELOPE_MID + body + <stamp> + FRAME_TAIL
 *
 * where `body` is the update's JSON with `,"_meta":{"t":` appended. The stamp is
 * `performance.timeOrigin + performance.now()` in ms (µs fraction), the same clock domain the
 * consumer reads, so latency = consumer's now − t.
 *
 * The mix is deterministic (seeded) and shaped like a real turn: thought runs, message runs of
 * 30–80-char chunks, tool_call + tool_call_update pairs (some completions carry ~2 KB), the odd
 * plan, and a usage_update after each tool call.
 */

export const ENVELOPE_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":';
export const ENVELOPE_MID = ',"update":';
export const FRAME_TAIL = '}}}}\n';

export type FrameKind =
  | 'user_message_chunk'
  | 'agent_message_chunk'
  | 'agent_thought_chunk'
  | 'tool_call'
  | 'tool_call_update'
  | 'plan'
  | 'usage_update';

export interface FrameTemplate {
  kind: FrameKind;
  /** Update JSON up to and including `"_meta":{"t":`. */
  body: string;
}

/** Current time in the stamp clock domain (ms since the epoch, µs fraction). */
export function stampNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The prefix of a frame for a session (sessionId is JSON-quoted here). */
export function envelopeFor(sessionId: string): string {
  return ENVELOPE_HEAD + JSON.stringify(sessionId) + ENVELOPE_MID;
}

// mulberry32: tiny deterministic PRNG, so every run floods the same bytes.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a to of and in is for that this with on it be as file test function return value ' +
  'error type import const let async await string number update session thread reducer ' +
  'I will now check `src/index.ts` "quoted" path: /workspace/app.ts, line 42; fix bug — ok.'
).split(' ');

const TOOL_KINDS = ['read', 'edit', 'search', 'execute', 'fetch', 'think', 'other'] as const;

function text(r: () => number, min: number, max: number): string {
  const want = min + Math.floor(r() * (max - min + 1));
  let s = '';
  while (s.length < want) s += (s ? ' ' : '') + WORDS[Math.floor(r() * WORDS.length)]!;
  if (r() < 0.08) s += '\n\n'; // markdown paragraphs: some chunks carry newlines to escape
  return s.slice(0, Math.max(want, 1));
}

function template(kind: FrameKind, update: Record<string, unknown>): FrameTemplate {
  const json = JSON.stringify({ sessionUpdate: kind, ...update });
  return { kind, body: json.slice(0, -1) + ',"_meta":{"t":' };
}

export interface FrameMixOptions {
  seed?: number;
  /** Start each turn with a user_message_chunk (what a `session/load` replay looks like). */
  withUser?: boolean;
  /** Prefix for tool call ids, so several generators do not collide. */
  idPrefix?: string;
}

/** Exactly `n` frame templates in a realistic, deterministic mix. */
export function buildTemplates(n: number, opts: FrameMixOptions = {}): FrameTemplate[] {
  const r = rng(opts.seed ?? 1);
  const id = opts.idPrefix ?? 'tc';
  const out: FrameTemplate[] = [];
  let calls = 0;
  let used = 1200;
  const push = (kind: FrameKind, u: Record<string, unknown>): boolean => {
    if (out.length >= n) return false;
    out.push(template(kind, u));
    return true;
  };
  const chunks = (kind: FrameKind, lo: number, hi: number): void => {
    const count = lo + Math.floor(r() * (hi - lo + 1));
    for (let i = 0; i < count; i++) push(kind, { content: { type: 'text', text: text(r, 30, 80) } });
  };
  while (out.length < n) {
    if (opts.withUser) push('user_message_chunk', { content: { type: 'text', text: text(r, 20, 200) } });
    chunks('agent_thought_chunk', 3, 12);
    chunks('agent_message_chunk', 5, 30);
    if (r() < 0.05) {
      const entries = Array.from({ length: 3 + Math.floor(r() * 4) }, (_, i) => ({
        content: text(r, 15, 50),
        priority: (['high', 'medium', 'low'] as const)[i % 3],
        status: i === 0 ? 'in_progress' : 'pending',
      }));
      push('plan', { entries });
    }
    if (r() < 0.6) {
      const toolCallId = `${id}-${++calls}`;
      const kind = TOOL_KINDS[Math.floor(r() * TOOL_KINDS.length)]!;
      const path = `/workspace/src/mod-${calls % 97}.ts`;
      push('tool_call', { toolCallId, title: `${kind}: ${path}`, kind, status: 'pending', locations: [{ path }] });
      push('tool_call_update', { toolCallId, status: 'in_progress' });
      const big = r() < 0.3; // some completions carry a ~2 KB tool result
      const result = big ? text(r, 1900, 2100) : text(r, 40, 120);
      push('tool_call_update', {
        toolCallId,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: result } }],
      });
      used += 500 + Math.floor(r() * 3000);
      push('usage_update', { used, size: 200_000 });
    }
  }
  return out;
}

/**
 * Serialize frames from index `from` (templates cycled) for one session, all with one stamp,
 * stopping at `to` or once the text reaches `maxChars` (at least one frame). Returns the text
 * and the next index.
 */
export function renderChunk(
  envelope: string,
  templates: readonly FrameTemplate[],
  from: number,
  to: number,
  maxChars: number,
  stamp: string,
): { text: string; next: number } {
  let s = '';
  const len = templates.length;
  let i = from;
  while (i < to && (i === from || s.length < maxChars)) {
    s += envelope + templates[i % len]!.body + stamp + FRAME_TAIL;
    i++;
  }
  return { text: s, next: i };
}
