import { TalariaError } from '../protocol/errors.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Store } from '../store/index.js';
import type { StoredSession } from '../store/sessions.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';
import { findStored } from './transfer.js';
import type { BranchOptions, ForeignTranscript } from './types.js';

/**
 * What a branch starts from: a stored session, or a transcript Talaria never stored (a
 * ForeignTranscript: Hermes' other channels), which has no parent and cannot be rewound.
 */
export function branchSource(
  source: string | ForeignTranscript,
  o: BranchOptions,
  d: {
    store: Store;
    registry: ProviderRegistry;
    providerFor(row: StoredSession): { provider: string; profile?: string };
    ws: string;
  },
) {
  if (typeof source !== 'string') {
    if (o.at !== undefined) throw new TalariaError('invalid_argument', 'a rewind needs a stored session');
    const snap: ThreadSnapshot = { entries: source.entries, plan: null, availableCommands: [], context: {} };
    const from: { provider: string; profile?: string } = {
      provider: source.fromProvider,
      ...(source.fromProfile ? { profile: source.fromProfile } : {}),
    };
    return {
      stored: undefined,
      name: `${source.fromLabel} session ${source.ref}`,
      title: source.title,
      cwd: source.cwd ?? d.ws,
      agentSessionId: source.ref,
      from,
      fromLabel: source.fromLabel,
      snap,
    };
  }
  const src = findStored(d.store, source);
  if (!src) throw new TalariaError('session_not_found', `no stored session ${source}`, { sessionId: source });
  const from = d.providerFor(src);
  return {
    stored: src,
    name: src.id.slice(0, 8),
    title: src.title,
    cwd: src.cwd,
    agentSessionId: src.agentSessionId,
    from,
    fromLabel: d.registry.get(from.provider)?.label ?? from.provider,
    snap: d.store.entries.loadSnapshot(src.id),
  };
}
