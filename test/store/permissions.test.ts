import { describe, it, expect } from 'vitest';
import type { PermissionDecisionEvent } from '../../src/permission/types.js';
import { evaluate } from '../../src/permission/policy.js';
import { StoreError } from '../../src/store/index.js';
import { permissionRules } from '../../src/harness/rules.js';
import { BACKENDS } from './backends.js';

describe.each(BACKENDS)('permission rules ($name)', (backend) => {
  it('stores rules by scope and returns them in policy order: global, workspace, session', () => {
    const store = backend.fresh({ now: () => 7 });
    const ws = store.workspaces.ensure({ path: '/w' });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/w', workspaceId: ws.id });
    store.sessions.create({ id: 'other', provider: 'p', cwd: '/w' });
    const sess = store.permissions.addRule({
      scope: 'session',
      scopeId: 's',
      rule: { decision: 'allow', toolKind: 'edit', source: 'always-answer' },
    });
    const glob = store.permissions.addRule({
      scope: 'global',
      rule: { decision: 'deny', command: 'rm *' },
      source: 'user',
    });
    const wsr = store.permissions.addRule({
      scope: 'workspace',
      scopeId: ws.id,
      rule: { id: 'mine', decision: 'ask', toolKind: 'edit' },
    });
    store.permissions.addRule({ scope: 'session', scopeId: 'other', rule: { decision: 'allow' } });
    expect(sess).toEqual({
      id: sess.id,
      scope: 'session',
      scopeId: 's',
      source: 'always-answer',
      createdAt: 7,
      rule: { id: String(sess.id), decision: 'allow', toolKind: 'edit', source: 'always-answer' },
    });
    expect(glob.source).toBe('user');
    expect(glob.scopeId).toBeUndefined();
    expect(wsr.rule.id).toBe('mine');
    const rules = store.permissions.rulesFor({ workspaceId: ws.id, sessionId: 's' });
    expect(rules.map((r) => r.id)).toEqual([String(glob.id), 'mine', String(sess.id)]);
    // Last match wins in the real policy, so the session's allow beats the workspace's ask.
    const subject = { sessionId: 'a1', toolCallId: 't', toolKind: 'edit', paths: ['/w/f.ts'], roots: ['/w'] };
    expect(evaluate(subject, { mode: 'ask', rules: permissionRules(rules) }).decision).toBe('allow');
    expect(store.permissions.rulesFor({}).map((r) => r.id)).toEqual([String(glob.id)]);
    expect(store.permissions.listRules('session', 's').map((r) => r.id)).toEqual([sess.id]);
    expect(store.permissions.listRules('global').map((r) => r.id)).toEqual([glob.id]);
    expect(store.permissions.listRules()).toHaveLength(4);
    expect(store.permissions.removeRule(sess.id)).toBe(true);
    expect(store.permissions.removeRule(sess.id)).toBe(false);
    expect(store.permissions.rulesFor({ workspaceId: ws.id, sessionId: 's' })).toHaveLength(2);
  });

  it('a scoped rule without its scope id is refused', () => {
    const store = backend.fresh();
    expect(() => store.permissions.addRule({ scope: 'workspace', rule: { decision: 'allow' } })).toThrow(StoreError);
  });
});

describe.each(BACKENDS)('permission audit ($name)', (backend) => {
  it('keeps one row per decision, with subject, outcome and rule', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/w' });
    const ev: PermissionDecisionEvent = {
      requestKey: 'r1',
      sessionId: 'agent-1',
      toolCallId: 'tc1',
      subject: { sessionId: 'agent-1', toolCallId: 'tc1', toolKind: 'edit', paths: ['/w/a'], roots: ['/w'] },
      outcome: { outcome: 'selected', optionId: 'yes' },
      optionKind: 'allow_once',
      decidedBy: 'user',
      answeredBy: 'cli',
      rule: { decision: 'ask' },
      reason: 'asked',
      at: 123,
    };
    store.permissions.audit(ev, 's');
    store.permissions.audit(
      {
        requestKey: 'r2',
        sessionId: 'agent-1',
        toolCallId: 'tc2',
        outcome: { outcome: 'cancelled' },
        decidedBy: 'cancel',
        reason: 'turn cancelled',
        at: 124,
      },
      's',
    );
    store.permissions.audit({ outcome: { outcome: 'cancelled' }, decidedBy: 'closed', at: 125 });
    const rows = store.permissions.listAudit('s');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      id: rows[0]!.id,
      sessionId: 's',
      agentSessionId: 'agent-1',
      requestKey: 'r1',
      toolCallId: 'tc1',
      decidedBy: 'user',
      outcome: { outcome: 'selected', optionId: 'yes' },
      optionKind: 'allow_once',
      answeredBy: 'cli',
      reason: 'asked',
      rule: { decision: 'ask' },
      subject: ev.subject,
      at: 123,
    });
    expect(rows[1]).toMatchObject({ requestKey: 'r2', decidedBy: 'cancel', outcome: { outcome: 'cancelled' } });
    expect(store.permissions.listAudit()).toHaveLength(3);
  });
});
