/** A session listing as a table: id, agent, last activity, where it lives, title. */
import type { SessionSummary } from '../../harness/index.js';
import type { Style } from './style.js';
import { sanitize, truncate } from './width.js';

type Row = Pick<SessionSummary, 'id' | 'provider' | 'archived' | 'stored'> &
  Partial<Pick<SessionSummary, 'title' | 'updatedAt' | 'atAgent' | 'profile' | 'failure'>>;

const when = (ms: number | undefined) =>
  ms === undefined || !Number.isFinite(ms) ? '' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** Where a session lives: only at the agent, only in the store (the agent lost it), archived; or that its last turn failed, and why in short. */
export function sessionState(r: Row): string {
  if (r.archived) return 'archived';
  if (r.failure) return `failed: ${shortReason(r.failure.message)}`;
  if (!r.stored) return 'agent only';
  if (r.atAgent === false) return 'store only';
  return '';
}

/** A failure's message cut to its first clause ("agent exited with code 3", not the stderr after it). */
const shortReason = (message: string): string => truncate(sanitize(message.split('\n')[0]!.split('; ')[0]!), 40);

/** The table; `current` (a Talaria id) is marked with `*`. */
export function sessionRows(rows: readonly Row[], style: Style, current?: string): string[] {
  if (rows.length === 0) return ['No sessions.'];
  const cells = rows.map((r) => [
    r.id,
    r.profile ? `${r.provider}:${r.profile}` : r.provider,
    when(r.updatedAt),
    sessionState(r),
    truncate(sanitize(r.title ?? ''), 60),
  ]);
  const head = ['ID', 'AGENT', 'UPDATED (UTC)', 'STATE', 'TITLE'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  if (current === undefined) return [style.bold(line(head)), ...cells.map(line)];
  return [style.bold(`  ${line(head)}`), ...cells.map((c, i) => `${rows[i]!.id === current ? '*' : ' '} ${line(c)}`)];
}
