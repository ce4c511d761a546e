/**
 * The summary's `branch` and `createdBy`: where a session came from. A branch's origin never
 * changes once made, so it is read once per session (the rewind's message number is a count over
 * the parent's entries); a session with none is asked again (cheap: one indexed read), since the
 * row of a branch exists a moment before its branch record.
 */
import { branchOrigin, createdByOf, type BranchOrigin } from '../harness/index.js';
import type { Store, StoredSession } from '../store/index.js';
import type { SessionSummaryInfo } from './contract/index.js';

export class SessionOrigins {
  private readonly branches = new Map<string, BranchOrigin>();

  constructor(private readonly store: Store) {}

  of(row: StoredSession): Pick<SessionSummaryInfo, 'branch' | 'createdBy'> {
    let b = this.branches.get(row.id);
    if (!b) {
      b = branchOrigin(this.store, row.id);
      if (b) this.branches.set(row.id, b);
    }
    const by = createdByOf(row);
    return { ...(b ? { branch: { ...b } } : {}), ...(by ? { createdBy: by } : {}) };
  }
}
