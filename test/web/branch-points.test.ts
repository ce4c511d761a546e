import { describe, expect, it } from 'vitest';
import type { BranchNodeInfo } from '../../src/server/contract/index.js';
import { branchPoints, ownMessage } from '../../web/src/state/branches.js';

const node = (id: string, children: BranchNodeInfo[] = [], extra: Partial<BranchNodeInfo> = {}): BranchNodeInfo => ({
  id,
  provider: 'demo',
  createdAt: 0,
  reseeds: 0,
  children,
  ...extra,
});
const user = (id: string) => ({ kind: 'user_message', id, text: id });
const branched = { kind: 'notice', id: 'n', code: 'branched', level: 'info', text: '' };

describe('web: branch points of a thread', () => {
  // P: u1, u2 (edited twice: B and C rewind at u2), D continues P in another agent.
  const tree = node('P', [
    node('B', [], { reason: 'rewind', forkEntryId: 'u2' }),
    node('C', [], { reason: 'rewind', forkEntryId: 'u2' }),
    node('D', [], { reason: 'continue' }),
  ]);

  it('the source: its message has the rewinds made there as later versions; other messages have none', () => {
    const p = branchPoints(tree, 'P', [user('u1'), user('u2')]);
    expect(p.versions.get('u2')).toEqual({ ids: ['P', 'B', 'C'], index: 0 });
    expect(p.versions.has('u1')).toBe(false);
    expect(p.editFrom('u1')).toEqual({ from: 'P', at: 'u1' });
  });

  it('a rewind: its own message (after the branched notice) is one version of the fork point; editing it branches from the parent', () => {
    const entries = [user('u1'), branched, user('c2'), user('c3')];
    expect(ownMessage(entries)).toBe('c2');
    const p = branchPoints(tree, 'C', entries);
    expect(p.versions.get('c2')).toEqual({ ids: ['P', 'B', 'C'], index: 2 });
    expect(p.versions.has('u1')).toBe(false);
    expect(p.versions.has('c3')).toBe(false);
    expect(p.editFrom('c2')).toEqual({ from: 'P', at: 'u2' });
    expect(p.editFrom('c3')).toEqual({ from: 'C', at: 'c3' });
  });

  it('a continuation in another agent is not a version of any message; no tree yet: no versions, edits branch here', () => {
    const d = branchPoints(tree, 'D', [user('u1'), user('u2'), branched, user('d3')]);
    expect(d.versions.size).toBe(0);
    expect(d.editFrom('d3')).toEqual({ from: 'D', at: 'd3' });
    const none = branchPoints(undefined, 'P', [user('u1')]);
    expect(none.versions.size).toBe(0);
    expect(none.editFrom('u1')).toEqual({ from: 'P', at: 'u1' });
  });
});
