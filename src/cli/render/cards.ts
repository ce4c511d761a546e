/**
 * Tool calls as terminal cards: a status badge, a kind icon and the title; then where it works,
 * its permission state, a coloured diff and the first lines of its output.
 */
import { readDelegation } from '../../providers/hermes/delegation.js';
import { unifiedDiff } from '../../thread/diff.js';
import type { ToolCallEntry } from '../../thread/types.js';
import type { Style } from './style.js';
import { sanitize } from './sanitize.js';

/** The tool kind as a dim tag: emoji widths vary between terminals and would break the layout. */
export function toolIcon(kind: string | undefined, style: Style): string {
  return style.dim(`[${kind ?? 'tool'}]`);
}

export function statusBadge(status: string, style: Style, spin = '◐'): string {
  switch (status) {
    case 'pending':
      return style.gray('○');
    case 'in_progress':
      return style.yellow(spin);
    case 'completed':
      return style.green('✓');
    case 'failed':
      return style.red('✗');
    case 'cancelled':
      return style.gray('⊘');
    default:
      return style.gray('?');
  }
}

export function isSettled(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function permissionNote(e: ToolCallEntry, style: Style): string {
  const p = e.permission;
  if (!p) return '';
  if (p.status === 'pending') return style.yellow(' · waiting for permission');
  if (p.status === 'allowed') return style.green(' · allowed');
  if (p.status === 'rejected') return style.red(' · rejected');
  return style.gray(' · permission cancelled');
}

/** The one-line header of a card. */
export function cardHeader(e: ToolCallEntry, style: Style, spin?: string): string {
  const status = e.status === 'in_progress' || e.status === 'pending' ? '' : style.dim(` ${e.status}`);
  return `${statusBadge(e.status, style, spin)} ${toolIcon(e.toolKind, style)} ${style.bold(sanitize(e.title.replace(/\s*\n\s*/g, ' ')))}${status}${permissionNote(e, style)}`;
}

export function diffLines(path: string, oldText: string | null, newText: string, style: Style, max: number): string[] {
  const all = unifiedDiff(path, oldText, newText).replace(/\n$/, '').split('\n').map(sanitize);
  // A whole-file diff whose text does not change has no hunk: say so rather than show bare headers.
  if (!all.some((l) => l.startsWith('@@'))) {
    const n = newText === '' ? 0 : newText.replace(/\n$/, '').split('\n').length;
    all.push(
      oldText === null
        ? '(new empty file)'
        : n === 1
          ? '(no change: its one line stays as it is)'
          : `(no change: its ${n} lines stay as they are)`,
    );
  }
  const shown = all.slice(0, max).map((l) => {
    if (l.startsWith('+++') || l.startsWith('---')) return style.bold(l);
    if (l.startsWith('@@')) return style.cyan(l);
    if (l.startsWith('+')) return style.green(l);
    if (l.startsWith('-')) return style.red(l);
    return style.dim(l);
  });
  if (all.length > max) shown.push(style.dim(`… ${all.length - max} more diff lines`));
  return shown;
}

export interface CardOptions {
  /** Most body lines per content item. */
  maxLines: number;
  /** Include output/diff bodies (settled or asking cards) or only the header. */
  body: boolean;
  spin?: string;
  /** Content items already on screen (by contentKey): not shown again. Items shown are added. */
  shown?: Set<string>;
}

/** Identity of a content item, to show each diff or output once. */
export function contentKey(item: unknown): string {
  // By what is shown, not by how it was sent (agents resend a diff with oldText null or absent, keys reordered).
  const c = item as {
    type?: string;
    path?: string;
    oldText?: string | null;
    newText?: string;
    content?: { type?: string; text?: string };
  };
  if (c?.type === 'diff') return `diff\0${c.path ?? ''}\0${c.oldText ?? ''}\0${c.newText ?? ''}`;
  if (c?.type === 'content' && c.content?.type === 'text') return `text\0${c.content.text ?? ''}`;
  return JSON.stringify(item);
}

/** The card: header, locations, then (with `body`) diffs and text output, indented. */
export function toolCard(e: ToolCallEntry, style: Style, o: CardOptions): string[] {
  const out = [cardHeader(e, style, o.spin)];
  const locs = (e.locations ?? []).map((l) => (l.line != null ? `${l.path}:${l.line}` : l.path));
  if (locs.length > 0 && !e.title.includes(locs[0]!)) out.push(style.dim(`  ↳ ${sanitize(locs.join(', '))}`));
  if (!o.body) return out;
  const lane = subagentLane(e, style, o);
  if (lane) return [...out, ...lane];
  for (const c of e.content ?? []) {
    if (o.shown) {
      const key = contentKey(c);
      if (o.shown.has(key)) continue;
      o.shown.add(key);
    }
    const item = c as {
      type?: string;
      path?: string;
      oldText?: string | null;
      newText?: string;
      content?: { type?: string; text?: string };
    };
    if (item.type === 'diff' && typeof item.newText === 'string') {
      for (const l of diffLines(item.path ?? 'file', item.oldText ?? null, item.newText, style, o.maxLines))
        out.push(`  ${l}`);
    } else if (item.type === 'content' && item.content?.type === 'text' && typeof item.content.text === 'string') {
      const lines = sanitize(item.content.text).replace(/\n$/, '').split('\n');
      for (const l of lines.slice(0, o.maxLines)) out.push(style.dim(`  │ ${l}`));
      if (lines.length > o.maxLines) out.push(style.dim(`  │ … ${lines.length - o.maxLines} more lines`));
    } else if (item.type === 'terminal') {
      out.push(style.dim('  │ (terminal output)'));
    }
  }
  return out;
}

/**
 * Hermes' delegate_task once dispatched: a lane saying what runs, instead of its JSON body (shown
 * once). Hermes sends nothing more of the subagent over ACP (providers/hermes/delegation.ts).
 */
function subagentLane(e: ToolCallEntry, style: Style, o: CardOptions): string[] | undefined {
  const d = readDelegation(e);
  if (!d?.dispatched) return undefined;
  const key = `subagent\0${e.toolCallId}`;
  if (o.shown?.has(key)) return [];
  o.shown?.add(key);
  const id = d.delegationId ? style.dim(` · ${sanitize(d.delegationId)}`) : '';
  return [
    `  ↳ ${style.bold('Subagent running in the background')}${id}`,
    ...d.goals.map((g) => `  │ ${sanitize(g.replace(/\s*\n\s*/g, ' '))}`),
    style.dim(
      "  │ Hermes does not send the subagent's progress over ACP, and its result does not come back to this session.",
    ),
  ];
}
