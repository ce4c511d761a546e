/**
 * Where the branch tree (issue 14) meets a thread: which user messages have other versions (the
 * rewinds that forked there, each a session of its own) and where an edit of a message branches
 * from. A rewound session's own message (the first after its `branched` notice) is one version
 * of its parent's message: editing it again branches from the parent, so all versions of one
 * point stay siblings.
 */
import { isObj, str } from './entries.js';

/** What this reads of the server's branch tree (BranchNode). */
export interface BranchNode {
  id: string;
  reason?: string | undefined;
  forkEntryId?: string | undefined;
  children: BranchNode[];
}

export interface Versions {
  /** The sessions holding a version of this message, oldest first. */
  ids: string[];
  /** This session's place among them. */
  index: number;
}

export interface BranchPoints {
  versions: Map<string, Versions>;
  /** The session and entry an edit of this user message branches from. */
  editFrom(entryId: string): { from: string; at: string };
}

function find(node: BranchNode, id: string, parent?: BranchNode): { node: BranchNode; parent?: BranchNode } | undefined {
  if (node.id === id) return { node, ...(parent ? { parent } : {}) };
  for (const c of node.children) {
    const f = find(c, id, node);
    if (f) return f;
  }
  return undefined;
}

const rewindsAt = (n: BranchNode, entryId: string): string[] => n.children.filter((c) => c.reason === 'rewind' && c.forkEntryId === entryId).map((c) => c.id);

/** The first user message after the last `branched` notice: this branch's own version of the fork point. */
export function ownMessage(entries: readonly unknown[]): string | undefined {
  let after = false;
  let own: string | undefined;
  for (const e of entries) {
    if (!isObj(e)) continue;
    if (e.kind === 'notice' && e.code === 'branched') {
      after = true;
      own = undefined;
    } else if (after && own === undefined && e.kind === 'user_message') own = str(e.id);
  }
  return own;
}

export function branchPoints(tree: BranchNode | undefined, current: string, entries: readonly unknown[]): BranchPoints {
  const versions = new Map<string, Versions>();
  const here = tree ? find(tree, current) : undefined;
  const own = ownMessage(entries);
  const fork = here?.parent && here.node.reason === 'rewind' && here.node.forkEntryId ? { parent: here.parent, at: here.node.forkEntryId } : undefined;
  if (here) {
    for (const e of entries) {
      if (!isObj(e) || e.kind !== 'user_message' || typeof e.id !== 'string') continue;
      if (fork && e.id === own) {
        // The versions of the fork point: the parent's message, its rewinds there, and the rewinds of this one's.
        const ids = [fork.parent.id, ...rewindsAt(fork.parent, fork.at), ...rewindsAt(here.node, e.id)];
        versions.set(e.id, { ids, index: ids.indexOf(current) });
      } else {
        const kids = rewindsAt(here.node, e.id);
        if (kids.length > 0) versions.set(e.id, { ids: [current, ...kids], index: 0 });
      }
    }
  }
  return {
    versions,
    editFrom: (entryId) => (fork && entryId === own ? { from: fork.parent.id, at: fork.at } : { from: current, at: entryId }),
  };
}
