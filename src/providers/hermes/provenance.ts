/**
 * Hermes' lineage across compression, as its ACP adapter reports it (`_meta.hermes.sessionProvenance`
 * on session/new, load, resume and session_info_update; acp_adapter/provenance.py in 0.18.2).
 * With `compression.in_place: false` a compression ends the internal row and continues in a new
 * one (`currentHermesSessionId`) while the ACP id stays; a later process loading the ORIGINAL id
 * gets the ended root (its pre-compression history, new turns appended to the ended row). So a
 * client has to load `currentHermesSessionId` next time. Read defensively: Hermes owns the
 * format, and a shape we do not know is "no provenance", never a guess.
 */

export interface HermesProvenance {
  acpSessionId: string;
  currentHermesSessionId: string;
  rootHermesSessionId: string;
  parentHermesSessionId: string | null;
  sessionKind: 'root' | 'continuation';
  compressionDepth: number;
  /** Only on the update of the turn that rotated the head. */
  previousHermesSessionId?: string;
  reason?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const id = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `hermes.sessionProvenance` of a thread meta / `_meta` object; undefined unless every field has the known shape. */
export function readProvenance(meta: unknown): HermesProvenance | undefined {
  const p = isObj(meta) && isObj(meta.hermes) ? meta.hermes.sessionProvenance : undefined;
  if (!isObj(p)) return undefined;
  const {
    acpSessionId,
    currentHermesSessionId,
    rootHermesSessionId,
    parentHermesSessionId,
    sessionKind,
    compressionDepth,
  } = p;
  if (!id(acpSessionId) || !id(currentHermesSessionId) || !id(rootHermesSessionId)) return undefined;
  if (parentHermesSessionId !== null && !id(parentHermesSessionId)) return undefined;
  if (sessionKind !== 'root' && sessionKind !== 'continuation') return undefined;
  if (typeof compressionDepth !== 'number' || !Number.isInteger(compressionDepth) || compressionDepth < 0)
    return undefined;
  const out: HermesProvenance = {
    acpSessionId,
    currentHermesSessionId,
    rootHermesSessionId,
    parentHermesSessionId,
    sessionKind,
    compressionDepth,
  };
  if (id(p.previousHermesSessionId)) out.previousHermesSessionId = p.previousHermesSessionId;
  if (typeof p.reason === 'string') out.reason = p.reason;
  return out;
}

/**
 * The Hermes session to reopen for a stored conversation: the head the conversation moved to
 * when the stored meta says a compression continued it elsewhere, else the stored id itself.
 */
export function reopenTarget(storedAgentSessionId: string, meta: unknown): string {
  const p = readProvenance(meta);
  if (!p || p.sessionKind !== 'continuation') return storedAgentSessionId;
  // Only a lineage this conversation belongs to: its root is the stored id, or the stored id
  // is already a continuation of that root (a session first opened from the continuation id).
  if (p.rootHermesSessionId !== storedAgentSessionId && p.acpSessionId !== storedAgentSessionId)
    return storedAgentSessionId;
  return p.currentHermesSessionId;
}
