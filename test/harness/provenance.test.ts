/** Where a stored session came from (provenance.ts): a one-shot run's mark, a branch's origin and its message number. */
import { describe, expect, it } from 'vitest';
import { branchOrigin, createdByOf } from '../../src/harness/index.js';
import { withCreatedBy } from '../../src/harness/provenance.js';
import type { Entry } from '../../src/thread/types.js';
import { freshStore } from '../store/helpers.js';

const user = (id: string): Entry => ({ id, kind: 'user_message', text: id, blocks: [] });
const agent = (id: string): Entry => ({ id, kind: 'assistant_message', text: id, blocks: [] });

describe('provenance', () => {
  it("createdBy: kept beside the agent's info, read back; absent when not given", () => {
    const store = freshStore();
    const run = store.sessions.create({
      provider: 'demo',
      cwd: '/',
      agentInfo: withCreatedBy({ agentInfo: { name: 'demo' } }, 'run'),
    });
    const here = store.sessions.create({
      provider: 'demo',
      cwd: '/',
      agentInfo: withCreatedBy({ agentInfo: { name: 'demo' } }, undefined),
    });
    expect(createdByOf(store.sessions.get(run.id)!)).toBe('run');
    expect((store.sessions.get(run.id)!.agentInfo as { agentInfo: unknown }).agentInfo).toEqual({ name: 'demo' });
    expect(createdByOf(store.sessions.get(here.id)!)).toBeUndefined();
  });

  it('a rewind says which user message of its parent it went back to; a fork and a continuation their kind; an overflow is no branch', () => {
    const store = freshStore();
    const root = store.sessions.create({ provider: 'demo', cwd: '/' });
    [user('u1'), agent('a1'), user('u2'), agent('a2'), user('u3')].forEach((e, i) =>
      store.entries.upsert(root.id, i, e),
    );
    const mk = () => store.sessions.create({ provider: 'demo', cwd: '/' }).id;
    const rw = mk();
    const fk = mk();
    const ct = mk();
    store.branches.add({ sessionId: rw, parentId: root.id, reason: 'rewind', forkEntryId: 'u3', provider: 'demo' });
    store.branches.add({ sessionId: fk, parentId: root.id, reason: 'fork', provider: 'demo' });
    store.branches.add({
      sessionId: ct,
      parentId: root.id,
      reason: 'continue',
      fromProvider: 'demo',
      provider: 'hermes',
    });
    store.branches.add({ sessionId: root.id, parentId: root.id, reason: 'overflow', provider: 'demo' });
    expect(branchOrigin(store, rw)).toEqual({ parentId: root.id, kind: 'rewind', atMessage: 3 });
    expect(branchOrigin(store, fk)).toEqual({ parentId: root.id, kind: 'fork' });
    expect(branchOrigin(store, ct)).toEqual({ parentId: root.id, kind: 'continue' });
    expect(branchOrigin(store, root.id)).toBeUndefined();
    expect(store.entries.userMessageNumber(root.id, 'a1')).toBeUndefined();
    expect(store.entries.userMessageNumber(root.id, 'u2')).toBe(2);
  });
});
