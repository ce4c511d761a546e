/**
 * The summary's `branch`, `createdBy` and `hermesLineage`: where a session came from. A branch's origin never
 * changes once made, so it is read once per session (the rewind's message number is a count over
 * the parent's entries); a session with none is asked again (cheap: one indexed read), since the
 * row of a branch exists a moment before its branch record.
 */
import { branchOrigin, createdByOf, type BranchOrigin } from '../harness/index.js';
import { readProvenance } from '../providers/hermes/provenance.js';
import type { Store, StoredSession } from '../store/index.js';
import type { SessionSummaryInfo } from './contract/index.js';

export class SessionOrigins {
  private readonly branches = new Map<string, BranchOrigin>();

  constructor(private readonly store: Pick<Store, 'branches' | 'entries'>) {}

  of(row: StoredSession): Pick<SessionSummaryInfo, 'branch' | 'createdBy' | 'hermesLineage'> {
    let b = this.branches.get(row.id);
    if (!b) {
      b = branchOrigin(this.store, row.id);
      if (b) this.branches.set(row.id, b);
    }
    const by = createdByOf(row);
    const lineage = this.lineage(row.id);
    return {
      ...(b ? { branch: { ...b } } : {}),
      ...(by ? { createdBy: by } : {}),
      ...(lineage ? { hermesLineage: lineage } : {}),
    };
  }

  /** Read each time: Hermes may compress again in any turn (one indexed read). */
  private lineage(id: string): SessionSummaryInfo['hermesLineage'] {
    const p = readProvenance(this.store.entries.getMeta(id)?.meta);
    if (!p || p.compressionDepth === 0) return undefined;
    return {
      compressions: p.compressionDepth,
      rootHermesSessionId: p.rootHermesSessionId,
      ...(p.parentHermesSessionId ? { parentHermesSessionId: p.parentHermesSessionId } : {}),
      currentHermesSessionId: p.currentHermesSessionId,
    };
  }
}
