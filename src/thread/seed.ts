/**
 * Transcript seeding: a thread (or its part before an entry) → one compact first prompt for a
 * fresh agent session that continues the conversation (overflow recovery, rewind, another
 * agent). Pure. Sized to the agent's context: newest exchanges first, long texts cut in the
 * middle, tool results summarised, images kept only when the agent takes them; what does not
 * fit is left out and counted. Turns that overflowed the context are named, not repeated (their
 * text is what did not fit).
 */
import type { ContentBlock, Entry, MessageEntry, NoticeEntry, ToolCallEntry } from './types.js';

export type SeedReason = 'overflow' | 'rewind' | 'continue';

export interface SeedOptions {
  reason: SeedReason;
  /** The agent's context window in tokens (its usage_update.size); else DEFAULT_CONTEXT_TOKENS. */
  contextSize?: number | undefined;
  /** Share of the context the seed may take: the agent's own prompt, tools, the new message and the answer need the rest. */
  share?: number;
  /** The agent takes images in prompts (promptCapabilities.image). */
  images?: boolean;
  /** The agent the conversation comes from (shown when it changes). */
  from?: string;
  /** Only entries before this entry id (rewind: the edited message and what followed are left out). */
  before?: string;
}

export interface Seed {
  /** The first prompt's blocks: the transcript text, then the images kept. */
  blocks: ContentBlock[];
  text: string;
  /** Estimated tokens of the blocks (estimateTokens + IMAGE_TOKENS per image); never above `budget`. */
  tokens: number;
  budget: number;
  /** Exchanges (a user message and what answered it) in the seed, and left out for room. */
  exchanges: number;
  omitted: number;
  images: number;
}

/** When the agent never said its context size (a conservative size most current models exceed). */
export const DEFAULT_CONTEXT_TOKENS = 32_000;
export const DEFAULT_SHARE = 0.4;
/** What one image is counted as (a mid-size image in current vision models). */
export const IMAGE_TOKENS = 1_600;
const MAX_IMAGES = 4;
const TOOL_SUMMARY_CHARS = 240;

const encoder = new TextEncoder();
/** A conservative token estimate: one token per 3 UTF-8 bytes (English runs ~4, CJK ~3). */
export function estimateTokens(text: string): number {
  return Math.ceil(encoder.encode(text).length / 3);
}

interface Exchange {
  user?: MessageEntry;
  said: string[];
  tools: ToolCallEntry[];
  error?: NoticeEntry;
}

function exchangesOf(entries: readonly Entry[], before?: string): Exchange[] {
  const out: Exchange[] = [];
  let cur: Exchange | undefined;
  for (const e of entries) {
    if (before !== undefined && e.id === before) break;
    if (e.kind === 'user_message') {
      cur = { user: e, said: [], tools: [] };
      out.push(cur);
      continue;
    }
    if (!cur) {
      // An agent's greeting before any user message still belongs to the conversation.
      if (e.kind !== 'assistant_message' && e.kind !== 'tool_call') continue;
      cur = { said: [], tools: [] };
      out.push(cur);
    }
    if (e.kind === 'assistant_message' && e.text.trim()) cur.said.push(e.text.trim());
    else if (e.kind === 'tool_call') cur.tools.push(e);
    // A turn's error notice comes right after its turn ended (no turnId): it belongs to this exchange.
    else if (e.kind === 'notice' && e.level === 'error') cur.error ??= e;
  }
  return out;
}

/** Keeps the head and the tail of a long text (the ask and the conclusion are at the ends). */
export function cut(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  const marker = ' […] ';
  let keep = Math.max(0, maxTokens * 3 - marker.length);
  for (;;) {
    const head = Math.ceil(keep / 2);
    const out = keep <= 0 ? '' : text.slice(0, head) + marker + text.slice(text.length - (keep - head));
    if (estimateTokens(out) <= maxTokens || keep <= 0) return out;
    keep = Math.floor(keep * 0.9) - 1;
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** One line per tool call: what it was, how it ended, what came back (summarised). */
export function toolSummary(t: ToolCallEntry): string {
  const parts: string[] = [];
  for (const c of t.content as Array<Record<string, unknown>>) {
    if (c?.type === 'diff') {
      const lines = (s: unknown) => (typeof s === 'string' && s !== '' ? s.split('\n').length : 0);
      parts.push(`${c.oldText == null ? 'wrote' : 'edited'} ${String(c.path)} (${lines(c.newText)} lines)`);
    } else if (c?.type === 'content') {
      const b = c.content as { type?: string; text?: unknown } | undefined;
      if (b?.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    } else if (c?.type === 'terminal') parts.push('terminal output');
  }
  if (parts.length === 0 && typeof t.rawOutput === 'string') parts.push(t.rawOutput);
  let result = oneLine(parts.join('; '));
  if (result.length > TOOL_SUMMARY_CHARS) result = result.slice(0, TOOL_SUMMARY_CHARS - 1) + '…';
  return `- tool ${oneLine(t.title)} (${t.status})${result ? `: ${result}` : ''}`;
}

function render(x: Exchange, caps: { user: number; said: number; tools: boolean }, imagesKept: boolean): string {
  const lines: string[] = [];
  if (x.user) {
    if (x.error?.code === 'context_overflow') {
      lines.push(
        `User: [a message of ${x.user.text.length} characters; it overflowed the context and got no answer, so it is left out]`,
      );
      return lines.join('\n');
    }
    lines.push(`User: ${cut(x.user.text, caps.user)}`);
    const imgs = x.user.blocks.filter((b) => b.type === 'image').length;
    if (imgs > 0 && !imagesKept) lines.push(`[${imgs} image${imgs > 1 ? 's' : ''} attached; not passed on]`);
  }
  if (caps.tools) for (const t of x.tools) lines.push(toolSummary(t));
  else if (x.tools.length > 0) lines.push(`[${x.tools.length} tool call${x.tools.length > 1 ? 's' : ''}]`);
  // Agents that report errors as text (Hermes) said the error: it is not part of the conversation.
  const agentText = (x.error?.data as { agentText?: unknown } | undefined)?.agentText;
  const said =
    typeof agentText === 'string' ? x.said.map((t) => t.replace(agentText, '').trim()).filter(Boolean) : x.said;
  if (said.length > 0) lines.push(`Assistant: ${cut(said.join('\n\n'), caps.said)}`);
  if (x.error) lines.push(`[the turn ended with an error: ${x.error.code}]`);
  return lines.join('\n');
}

const REASONS: Record<SeedReason, string> = {
  overflow: 'the previous agent session ran out of context',
  rewind: 'the user went back to an earlier message',
  continue: 'the user moved the conversation to this agent',
};

/** How every seed starts: an agent that titles its session from the first prompt quotes it back. */
export const SEED_MARK = '[Talaria] This conversation continues';

/** A title made from Talaria's seed prompt (not the conversation's): the branch keeps Talaria's title. */
export function echoesSeed(title: string): boolean {
  return title.includes(SEED_MARK);
}

function header(o: SeedOptions, omitted: number): string {
  const from = o.from ? ` with ${o.from}` : '';
  const left = omitted > 0 ? ` ${omitted} earlier exchange${omitted > 1 ? 's are' : ' is'} left out for room.` : '';
  return (
    `${SEED_MARK} from an earlier session${from} (${REASONS[o.reason]}). ` +
    `Below is a compact transcript of it, oldest first; tool results are summarised.${left} ` +
    `Take it as context and do not answer it; the user's new message follows the transcript.\n<transcript>`
  );
}
/** How every seed's transcript ends: the user's new message, if any, follows it. */
export const SEED_END = '</transcript>';
const FOOTER = SEED_END;

export function buildSeed(entries: readonly Entry[], o: SeedOptions): Seed {
  const size = o.contextSize && o.contextSize > 0 ? o.contextSize : DEFAULT_CONTEXT_TOKENS;
  const budget = Math.max(64, Math.floor(size * (o.share ?? DEFAULT_SHARE)));
  const all = exchangesOf(entries, o.before);
  const images = o.images === true;
  // Room for the frame, with the largest omitted count it could show.
  let room = budget - estimateTokens(header(o, all.length) + '\n' + FOOTER) - 2;
  const kept: string[] = [];
  const imageBlocks: ContentBlock[] = [];
  const full = { user: Math.floor(budget / 4), said: Math.floor(budget / 4), tools: true };
  const tight = { user: Math.floor(budget / 16), said: Math.floor(budget / 16), tools: false };
  let i = all.length - 1;
  for (; i >= 0 && room > 0; i--) {
    const x = all[i]!;
    let text = render(x, full, images);
    if (estimateTokens(text) + 1 > room) text = render(x, tight, images);
    if (estimateTokens(text) + 1 > room) {
      // The newest exchange is always there, cut to what is left; older ones are left out.
      if (kept.length > 0) break;
      text = cut(text, room - 1);
    }
    room -= estimateTokens(text) + 1;
    kept.unshift(text);
    if (images && x.user && !(x.error?.code === 'context_overflow')) {
      for (const b of x.user.blocks.filter((b) => b.type === 'image').reverse()) {
        if (imageBlocks.length >= MAX_IMAGES || room < IMAGE_TOKENS) break;
        imageBlocks.unshift(b);
        room -= IMAGE_TOKENS;
      }
    }
  }
  const omitted = i + 1;
  const text = [header(o, omitted), ...kept, FOOTER].join('\n');
  const tokens = estimateTokens(text) + imageBlocks.length * IMAGE_TOKENS;
  return {
    blocks: [{ type: 'text', text }, ...imageBlocks],
    text,
    tokens,
    budget,
    exchanges: kept.length,
    omitted,
    images: imageBlocks.length,
  };
}
