/**
 * COMPRESSME (the research fake model's keyword: a terminal call reported with 120000 prompt
 * tokens, so Hermes compresses before the next call) and what that compression does to the
 * session, as a built Hermes 0.18.2 does it (agent/conversation_compression.py):
 * - `compression.in_place` true (the default): the history is compressed under the same id;
 *   no frame says so.
 * - `compression: {in_place: false}`: the internal head rotates mid-turn. The old row is ended
 *   (end_reason 'compression') and keeps its pre-compression transcript; a new row
 *   `YYYYMMDD_HHMMSS_<6 hex>` with parent_session_id = old id carries the compressed history and
 *   the rest of the turn. The ACP sessionId on the wire does not change; just before the prompt
 *   response a session_info_update carries the continuation provenance (prompt.ts). A new
 *   process loading the ORIGINAL id gets the ended root (the trap clients must avoid).
 */
import { randomBytes } from 'node:crypto';
import { terminal } from './actions.js';
import { compressOnce } from './compaction.js';
import { replaceAll } from './history.js';
import { persist, TOKENS_PER_CALL, type Ctx, type Runtime } from './runtime.js';
import { recordModelCalls } from './state-db.js';
import type { SessionRecord } from './state.js';
import type { Turn } from './turn.js';

/** Hermes' SessionDB id for a new head: UTC timestamp + 6 hex (not a uuid). */
export function continuationId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const d = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
  const t = `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${d}_${t}_${randomBytes(3).toString('hex')}`;
}

/** Ends the head and continues in a new row; the caller's turn keeps running on it. */
export function rotate(t: Turn, compressed: ReturnType<typeof compressOnce>): void {
  const { ctx, rt } = t;
  const old = rt.rec;
  // The calls made so far belong to the ended row (real: root 131710 in, continuation the rest).
  recordTurnCalls(ctx, rt, t.calls - t.recorded);
  t.recorded = t.calls;
  old.endReason = 'compression';
  old.endedAt = Date.now();
  persist(ctx, rt, false);
  const now = Date.now();
  const history = compressed ?? structuredClone(rt.history);
  const next: SessionRecord = {
    id: continuationId(),
    source: 'acp',
    cwd: old.cwd,
    title: old.title ? `${old.title} #2` : null,
    provider: old.provider,
    model: old.model,
    parentId: old.id,
    startedAt: now,
    lastActive: now,
    toolSeq: old.toolSeq,
    history: structuredClone(history),
  };
  rt.rec = next;
  rt.history = history;
  rt.rotatedFrom = old.id;
  persist(ctx, rt, false);
  ctx.log(`INFO agent.conversation_compression: session split: ${old.id} -> ${next.id} (end_reason=compression)`);
}

export function recordTurnCalls(ctx: Ctx, rt: Runtime, calls: number): void {
  recordModelCalls(ctx.store.home, rt.rec, calls, TOKENS_PER_CALL, {
    baseUrl: ctx.cfg.baseUrl,
    price: ctx.settings.price,
  });
}

export async function compressMe(t: Turn): Promise<void> {
  await terminal(t, 'echo before-compression');
  if (t.rt.cancelled) return;
  const compressed = compressOnce(t.rt.history);
  if (!t.ctx.cfg.compressionInPlace) rotate(t, compressed);
  else if (compressed) replaceAll(t.rt, compressed);
  await t.say('Compressed and continued.');
}
