import type { ContentBlock, Entry, MessageEntry, Thread, ToolCallEntry } from './types.js';
import { unifiedDiff } from './diff.js';

export interface MarkdownOptions {
  /** Document heading; defaults to the thread title, else "Thread". */
  title?: string;
  /** How thoughts render: a collapsible `<details>` block (default), a `>` quote, or not at all. */
  thinking?: 'details' | 'quote' | 'omit';
  /** Include the live plan as a checklist at the end (default true). */
  plan?: boolean;
}

/** Readable, deterministic Markdown of a thread (same thread → same bytes). */
export function toMarkdown(thread: Thread, opts: MarkdownOptions = {}): string {
  const parts: string[] = [`# ${opts.title ?? thread.title ?? 'Thread'}`];
  for (const e of thread.entries) {
    const md = entryMarkdown(e, opts);
    if (md !== '') parts.push(md);
  }
  if (opts.plan !== false && thread.plan && thread.plan.length > 0) {
    parts.push(['## Plan', '', ...thread.plan.map(planLine)].join('\n'));
  }
  return parts.join('\n\n') + '\n';
}

function entryMarkdown(e: Entry, opts: MarkdownOptions): string {
  switch (e.kind) {
    case 'user_message':
      return message('### User', e);
    case 'assistant_message':
      return message('### Assistant', e);
    case 'thought':
      return thought(e, opts.thinking ?? 'details');
    case 'tool_call':
      return toolCall(e);
    case 'notice':
      return `> **${e.level === 'info' ? 'Note' : e.level === 'warning' ? 'Warning' : 'Error'}** (\`${e.code}\`): ${e.text}`;
    case 'unknown':
      return `### Update \`${e.sessionUpdate || '?'}\`\n\n${fence(compactJson(e.raw), 'json')}`;
    default:
      return `### Entry\n\n${fence(compactJson(e), 'json')}`;
  }
}

function body(e: MessageEntry): string {
  // Hermes starts post-tool text with "\n\n": drop leading blank lines and trailing space.
  const text = e.text.replace(/^(?:[ \t]*\n)+/, '').replace(/\s+$/, '');
  return [text, ...(e.blocks ?? []).map(blockLine)].filter((s) => s !== '').join('\n\n');
}

function message(heading: string, e: MessageEntry): string {
  const b = body(e);
  return b === '' ? '' : `${heading}\n\n${b}`;
}

function thought(e: MessageEntry, mode: 'details' | 'quote' | 'omit'): string {
  const b = body(e);
  if (b === '' || mode === 'omit') return '';
  if (mode === 'quote')
    return `> **Thinking**\n>\n${b
      .split('\n')
      .map((l) => (l === '' ? '>' : `> ${l}`))
      .join('\n')}`;
  return `<details>\n<summary>Thinking</summary>\n\n${b}\n\n</details>`;
}

const SETTLED: Record<string, string> = {
  agent: '',
  turn_end: ' (settled at turn end)',
  cancel: ' (settled by cancel)',
};

function toolCall(e: ToolCallEntry): string {
  const meta = [
    `- kind: \`${e.toolKind ?? 'unknown'}\``,
    `- status: ${e.status}${SETTLED[e.settledBy ?? 'agent'] ?? ''}`,
  ];
  const locs = (e.locations ?? []).map((l) => `\`${l.path}${l.line != null ? `:${l.line}` : ''}\``);
  if (locs.length > 0) meta.push(`- locations: ${locs.join(', ')}`);
  if (e.permission) {
    const p = e.permission;
    meta.push(`- permission: ${p.status}${p.optionId ? ` (\`${p.optionId}\`)` : ''}`);
  }
  const content = (e.content ?? []).map(toolContent).filter((s) => s !== '');
  return [`### Tool: ${oneLine(e.title)}`, meta.join('\n'), ...content].join('\n\n');
}

function toolContent(c: unknown): string {
  const item = c as {
    type?: unknown;
    content?: unknown;
    path?: unknown;
    oldText?: unknown;
    newText?: unknown;
    terminalId?: unknown;
  };
  if (item?.type === 'content' && typeof item.content === 'object' && item.content !== null) {
    const block = item.content as ContentBlock;
    if (block.type === 'text' && typeof block.text === 'string')
      return block.text === '' ? '' : fence(block.text, 'text');
    return blockLine(block);
  }
  if (item?.type === 'diff' && typeof item.newText === 'string') {
    const path = typeof item.path === 'string' ? item.path : 'file';
    const old = typeof item.oldText === 'string' ? item.oldText : null;
    return fence(unifiedDiff(path, old, item.newText), 'diff');
  }
  if (item?.type === 'terminal' && typeof item.terminalId === 'string') return `_terminal \`${item.terminalId}\`_`;
  return fence(compactJson(c), 'json');
}

/** One line for a non-text content block. */
function blockLine(b: ContentBlock): string {
  const s = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined);
  switch (b.type) {
    case 'text':
      return s('text') ?? '';
    case 'image':
    case 'audio':
      return `_[${b.type}${s('mimeType') ? `: ${s('mimeType')}` : ''}${s('uri') ? ` ${s('uri')}` : ''}]_`;
    case 'resource_link':
      return `[${s('title') ?? s('name') ?? s('uri') ?? 'link'}](${s('uri') ?? ''})`;
    case 'resource': {
      const r = b.resource as { uri?: unknown } | undefined;
      return `_[resource: ${typeof r?.uri === 'string' ? r.uri : '?'}]_`;
    }
    default:
      return `\`${compactJson(b).replace(/`/g, "'")}\``;
  }
}

function planLine(p: { content?: unknown; status?: unknown; priority?: unknown }): string {
  const done = p.status === 'completed';
  const note = p.status === 'in_progress' ? ' _(in progress)_' : '';
  return `- [${done ? 'x' : ' '}] ${oneLine(String(p.content ?? ''))}${note}`;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}

/** A fence longer than any backtick run inside, so content can never close it early. */
function fence(text: string, lang: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text.replace(/\n$/, '')}\n${f}`;
}

/** JSON with sorted keys: the same value always prints the same way. */
function compactJson(v: unknown): string {
  return (
    JSON.stringify(v, (_k, val: unknown) =>
      val && typeof val === 'object' && !Array.isArray(val)
        ? Object.fromEntries(
            Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          )
        : val,
    ) ?? 'null'
  );
}
