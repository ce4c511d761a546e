/**
 * A session as the list shows it (hub.ts): its stored row, and what its live session adds. Apart
 * from the hub so that the hub keeps the stream and this keeps the reading of a row.
 */
import type { Catalog } from '../session/catalog.js';
import type { StoredSession } from '../store/index.js';
import type { Entry } from '../thread/types.js';
import type { SessionSummaryInfo } from './contract/index.js';
import type { Failure } from './session-failure.js';

/** The model and mode a session runs with now. */
export interface Choice {
  modelId?: string;
  modeId?: string;
}

export const choiceOf = (c: Catalog): Choice => ({
  ...(c.model?.currentId !== undefined ? { modelId: c.model.currentId } : {}),
  ...(c.mode?.currentId !== undefined ? { modeId: c.mode.currentId } : {}),
});

/** What of `next` differs from `prev` (undefined when nothing does). */
export function choiceChange(prev: Choice, next: Choice): Choice | undefined {
  const out: Choice = {};
  if (next.modelId !== undefined && next.modelId !== prev.modelId) out.modelId = next.modelId;
  if (next.modeId !== undefined && next.modeId !== prev.modeId) out.modeId = next.modeId;
  return out.modelId !== undefined || out.modeId !== undefined ? out : undefined;
}

/** What a live session adds to its row's summary. */
export interface LiveFacts {
  state: Exclude<SessionSummaryInfo['state'], 'stored'>;
  entries: readonly Entry[];
  title: string | undefined;
  needsAttention: boolean;
  choice: Choice;
}

/** The first non-blank line of the last message, cut to 160 characters. */
function previewOf(entries: readonly Entry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind !== 'assistant_message' && e.kind !== 'user_message') continue;
    return 'text' in e
      ? e.text
          .split('\n')
          .find((l) => l.trim() !== '')
          ?.slice(0, 160)
      : undefined;
  }
  return undefined;
}

export function sessionSummary(
  row: StoredSession,
  live: LiveFacts | undefined,
  failure: Failure | undefined,
  origin: Pick<SessionSummaryInfo, 'branch' | 'createdBy' | 'hermesLineage'>,
): SessionSummaryInfo {
  const preview = live ? previewOf(live.entries) : undefined;
  const title = live?.title ?? row.title;
  // A live session's model and mode are what it runs with (a person's pick, or the agent's own switch).
  const modelId = live?.choice.modelId ?? row.modelId;
  const modeId = live?.choice.modeId ?? row.modeId;
  return {
    id: row.id,
    provider: row.provider,
    cwd: row.cwd,
    archived: row.archived,
    stored: true,
    updatedAt: row.lastActiveAt ?? row.updatedAt,
    live: live !== undefined && live.state !== 'closed',
    state: live ? live.state : 'stored',
    needsAttention: live?.needsAttention ?? false,
    ...(failure ? { failure: { ...failure } } : {}),
    ...(row.agentSessionId ? { agentSessionId: row.agentSessionId } : {}),
    ...(row.profile ? { profile: row.profile } : {}),
    ...(row.workspaceId ? { workspaceId: row.workspaceId } : {}),
    ...(title ? { title } : {}),
    ...(preview ? { preview } : {}),
    ...origin,
    ...(modelId ? { modelId } : {}),
    ...(modeId ? { modeId } : {}),
  };
}
