/**
 * `session/list` through `talaria acp`: Talaria's stored sessions of the agent this proxy wraps
 * (same provider and profile), never another agent's. A stored session with no turns is listed
 * only when this editor created or opened it: every proxy records the session it keeps warm, and
 * another editor's unused one is nobody's conversation.
 */
import type { Harness } from '../types.js';

export interface EditorListOptions {
  harness: Harness;
  provider: string;
  profile?: string | undefined;
  /** Talaria ids this editor created or opened (listed even before their first turn). */
  seen: ReadonlySet<string>;
}

export function editorList(o: EditorListOptions, p: Record<string, unknown>): { sessions: Record<string, unknown>[] } {
  const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : undefined;
  const { harness } = o;
  const rows = harness.sessions
    .list(cwd ? { workspace: cwd } : {})
    .filter((r) => r.provider === o.provider && (r.profile || undefined) === (o.profile || undefined))
    .filter((r) => o.seen.has(r.id) || harness.sessions.turns(r.id).length > 0);
  return {
    sessions: rows.map((r) => ({
      sessionId: r.id,
      cwd: r.cwd,
      ...(r.title ? { title: r.title } : {}),
      ...(r.updatedAt ? { updatedAt: new Date(r.updatedAt).toISOString() } : {}),
    })),
  };
}
