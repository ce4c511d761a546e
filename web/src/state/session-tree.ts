/**
 * The sidebar's sessions as trees: branches, forks and continuations under the session they came
 * from, each with a label that says what it is, and a tag that tells apart rows that would
 * otherwise read the same (same title, same label). Pure: unit-tested in Node.
 */
import type { SessionSummaryInfo } from '../../../src/server/contract/index.js';

export interface SessionNode {
  s: SessionSummaryInfo;
  /** What it is to its parent: "rewound at message 3", "in Hermes Agent", "fork". */
  label?: string;
  /** A short id when a sibling reads the same (title and label). */
  tag?: string;
  children: SessionNode[];
}

/** The label of a branch: what it is to the session it came from. */
export function branchLabel(s: SessionSummaryInfo, agentLabel: (id: string) => string): string | undefined {
  const b = s.branch;
  if (!b) return undefined;
  if (b.kind === 'rewind') return b.atMessage !== undefined ? `rewound at message ${b.atMessage}` : 'rewound';
  if (b.kind === 'continue') return `in ${agentLabel(s.provider)}`;
  return 'fork';
}

/**
 * Trees of `sessions` (in their order, a tree placed by its latest activity): a session whose
 * parent is listed goes under it; one whose parent is not (archived, filtered out) stands alone,
 * its label still saying what it is.
 */
export function sessionTrees(sessions: readonly SessionSummaryInfo[], agentLabel: (id: string) => string): SessionNode[] {
  const nodes = new Map<string, SessionNode>();
  for (const s of sessions) {
    const label = branchLabel(s, agentLabel);
    nodes.set(s.id, { s, ...(label ? { label } : {}), children: [] });
  }
  const roots: SessionNode[] = [];
  for (const s of sessions) {
    const node = nodes.get(s.id)!;
    const parent = s.branch ? nodes.get(s.branch.parentId) : undefined;
    // A parent that is its own descendant (damaged data) would lose both: such a pair stays flat.
    if (parent && !isBelow(parent, s.id, nodes)) parent.children.push(node);
    else roots.push(node);
  }
  const latest = new Map<SessionNode, number>();
  const activity = (n: SessionNode): number => {
    let t = latest.get(n);
    if (t === undefined) {
      t = Math.max(n.s.updatedAt ?? 0, ...n.children.map(activity));
      latest.set(n, t);
    }
    return t;
  };
  const order = (list: SessionNode[]): SessionNode[] => {
    tagLookAlikes(list);
    for (const n of list) n.children = order(n.children);
    return list
      .map((n, i) => [n, i] as const)
      .sort(([a, i], [b, j]) => activity(b) - activity(a) || i - j)
      .map(([n]) => n);
  };
  return order(roots);
}

/** Whether `id` is an ancestor of `node` (following the listed parents). */
function isBelow(node: SessionNode, id: string, nodes: Map<string, SessionNode>): boolean {
  const seen = new Set<string>();
  for (let p = node.s.branch?.parentId; p !== undefined && !seen.has(p); p = nodes.get(p)?.s.branch?.parentId) {
    if (p === id) return true;
    seen.add(p);
  }
  return false;
}

function tagLookAlikes(list: SessionNode[]): void {
  const key = (n: SessionNode): string => `${n.s.title ?? ''}\u0000${n.label ?? ''}`;
  const count = new Map<string, number>();
  for (const n of list) count.set(key(n), (count.get(key(n)) ?? 0) + 1);
  for (const n of list) if (count.get(key(n))! > 1) n.tag = n.s.id.slice(0, 6);
}
