import { describe, it, expect } from 'vitest';
import { alwaysRule } from '../../src/permission/always-rule.js';
import { PermissionBroker } from '../../src/permission/broker.js';
import type { PendingPermission, SetTimer } from '../../src/permission/broker-types.js';
import type { PolicyConfig } from '../../src/permission/policy.js';
import type { PermissionDecisionEvent, PermissionOption, PermissionRule } from '../../src/permission/types.js';

const o = (optionId: string, kind: string): PermissionOption => ({ optionId, name: optionId, kind });
/** Hermes' dangerous-command options (ids from the 0.18.2 recording). */
const HERMES_CMD = [
  o('allow_once', 'allow_once'),
  o('allow_session', 'allow_always'),
  o('allow_always', 'allow_always'),
  o('deny', 'reject_once'),
  o('deny_always', 'reject_always'),
];
/** Hermes' edit-approval options: no "always" at all. */
const HERMES_EDIT = [o('allow_once', 'allow_once'), o('deny', 'reject_once')];
const CODEX = [o('approved', 'allow_once'), o('abort', 'reject_once')];
const GEMINI = [o('proceed_always', 'allow_always'), o('proceed_once', 'allow_once'), o('cancel', 'reject_once')];

const ROOTS = ['/ws'];

function execParams(command: string, options = HERMES_CMD, sessionId = 's1', toolCallId = 'perm-check-1') {
  return { sessionId, toolCall: { toolCallId, kind: 'execute', title: command, rawInput: { command } }, options };
}
function editParams(path: string, options = HERMES_EDIT, sessionId = 's1', toolCallId = 'edit-approval-1') {
  return {
    sessionId,
    toolCall: {
      toolCallId,
      kind: 'edit',
      title: `Approve edit: ${path}`,
      content: [{ type: 'diff', path, newText: 'x' }],
    },
    options,
  };
}

function manualTimers() {
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let seq = 0;
  const setTimer: SetTimer = (fn, ms) => {
    const id = ++seq;
    timers.set(id, { fn, ms });
    return () => timers.delete(id);
  };
  return {
    setTimer,
    timers,
    fireAll(): void {
      for (const [id, t] of [...timers]) {
        timers.delete(id);
        t.fn();
      }
    },
  };
}

function setup(
  init: Partial<PolicyConfig> & { timeoutMs?: number; onDecisionThrows?: boolean; resolvePaths?: boolean } = {},
) {
  const events: PermissionDecisionEvent[] = [];
  const asks: PendingPermission[] = [];
  const rules = new Map<string, PermissionRule[]>();
  const added: [string, PermissionRule][] = [];
  const logged: string[] = [];
  const policy: PolicyConfig = { mode: init.mode ?? 'ask', rules: init.rules ?? [] };
  const t = manualTimers();
  const opts: ConstructorParameters<typeof PermissionBroker>[0] = {
    getPolicy: (sid) => ({ mode: policy.mode, rules: [...policy.rules, ...(rules.get(sid) ?? [])] }),
    setTimer: t.setTimer,
    onDecision: (e) => {
      events.push(e);
      if (init.onDecisionThrows) throw new Error('audit store down');
    },
    onAsk: (p) => asks.push(p),
    onRule: (sid, r) => {
      added.push([sid, r]);
      rules.set(sid, [...(rules.get(sid) ?? []), r]);
    },
    now: () => 1234,
    logger: { debug() {}, info() {}, warn: (m) => logged.push(m), error: (m) => logged.push(m) },
    // These tables use made-up paths (/ws): judge names, synchronously. Resolution has its own tests.
    ...(init.resolvePaths ? {} : { resolvePaths: false as const }),
  };
  if (init.timeoutMs !== undefined) opts.timeoutMs = init.timeoutMs;
  const broker = new PermissionBroker(opts);
  /** The audit invariant: exactly one decision event per request key. */
  const eventsFor = (key: string) => events.filter((e) => e.requestKey === key);
  return { broker, events, asks, added, policy, logged, eventsFor, ...t };
}

describe('PermissionBroker — policy decisions', () => {
  it('allows immediately with an offered allow_once option (auto mode)', async () => {
    const h = setup({ mode: 'auto' });
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('npm test', CODEX),
      roots: ROOTS,
    });
    expect(out).toEqual({ outcome: 'selected', optionId: 'approved' });
    expect(h.asks).toHaveLength(0);
    expect(h.timers.size).toBe(0);
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({
      requestKey: 'k1',
      sessionId: 's1',
      toolCallId: 'perm-check-1',
      decidedBy: 'policy',
      optionKind: 'allow_once',
      at: 1234,
    });
    expect(h.events[0]!.subject.command).toBe('npm test');
  });

  it('denies with an offered reject option and names the rule', async () => {
    const rule: PermissionRule = { id: 'no-curl', decision: 'deny', command: 'curl *' };
    const h = setup({ mode: 'auto', rules: [rule] });
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('curl x -o y', GEMINI),
      roots: ROOTS,
    });
    expect(out).toEqual({ outcome: 'selected', optionId: 'cancel' });
    expect(h.events).toHaveLength(1);
    expect(h.events[0]!.rule).toBe(rule);
    expect(h.events[0]!.decidedBy).toBe('policy');
  });

  it('answers cancelled when the policy allows but no allow option is offered', async () => {
    const h = setup({ mode: 'auto' });
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('ls', [o('no', 'reject_once')]),
      roots: ROOTS,
    });
    expect(out).toEqual({ outcome: 'cancelled' });
    expect(h.events).toHaveLength(1);
    expect(h.events[0]!.optionKind).toBeUndefined();
    expect(h.events[0]!.reason).toMatch(/no allow option/);
  });

  it('answers cancelled when the policy denies but no reject option is offered', async () => {
    const h = setup({ mode: 'auto', rules: [{ decision: 'deny' }] });
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('ls', [o('ok', 'allow_once')]),
      roots: ROOTS,
    });
    expect(out).toEqual({ outcome: 'cancelled' });
    expect(h.events).toHaveLength(1);
  });

  it('uses the known tool call when the request has only an id', async () => {
    const h = setup({ mode: 'ask', rules: [{ decision: 'allow', toolKind: 'execute', command: 'npm test' }] });
    const params = { sessionId: 's1', toolCall: { toolCallId: 'toolu_9' }, options: GEMINI };
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params,
      roots: ROOTS,
      known: { title: '`npm test`', toolKind: 'execute' },
    });
    expect(out).toEqual({ outcome: 'selected', optionId: 'proceed_once' });
  });
});

describe('PermissionBroker — asks', () => {
  it('creates one pending entry per request key; a duplicate shares the promise', async () => {
    const h = setup();
    const req = { requestKey: 'k1', sessionId: 's1', params: execParams('npm test'), roots: ROOTS, turnId: 'turn-1' };
    const p1 = h.broker.request(req);
    const p2 = h.broker.request(req);
    expect(p2).toBe(p1);
    expect(h.asks).toHaveLength(1);
    expect(h.asks[0]).toMatchObject({
      requestKey: 'k1',
      sessionId: 's1',
      toolCallId: 'perm-check-1',
      title: 'npm test',
      createdAt: 1234,
      turnId: 'turn-1',
    });
    expect(h.asks[0]!.options).toEqual(HERMES_CMD);
    expect(h.asks[0]!.policy.decision).toBe('ask');
    expect(h.broker.pending('s1')).toHaveLength(1);
    expect(h.broker.pending('other')).toHaveLength(0);
    expect(h.timers.size).toBe(1);
    expect([...h.timers.values()][0]!.ms).toBe(60_000);
    expect(h.events).toHaveLength(0);

    expect(h.broker.answer('k1', { choice: 'allow_once' }, 'alice')).toEqual({
      ok: true,
      optionId: 'allow_once',
      outcome: { outcome: 'selected', optionId: 'allow_once' },
    });
    expect(await p1).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    // A duplicate after the answer gets the same answer, not a second decision.
    expect(await h.broker.request(req)).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(h.eventsFor('k1')).toHaveLength(1);
    expect(h.broker.pending()).toHaveLength(0);
    expect(h.timers.size).toBe(0);
  });

  it('reports why it asks (forced ask for a dangerous command, even in auto)', () => {
    const h = setup({ mode: 'auto' });
    void h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('rm -rf /workspace/junkdir'),
      roots: ROOTS,
    });
    expect(h.asks[0]!.policy.forcedAsk).toBe('dangerous_command');
  });

  it('first answer wins across clients', async () => {
    const h = setup();
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params: execParams('npm test'), roots: ROOTS });
    expect(h.broker.answer('k1', { choice: 'reject_once' }, 'alice')).toMatchObject({ ok: true, optionId: 'deny' });
    expect(h.broker.answer('k1', { choice: 'allow_once' }, 'bob')).toEqual({ ok: false, reason: 'already_answered' });
    expect(h.broker.answer('k1', { optionId: 'allow_once' }, 'bob')).toEqual({ ok: false, reason: 'already_answered' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'deny' });
    expect(h.eventsFor('k1')).toHaveLength(1);
    expect(h.events[0]).toMatchObject({ decidedBy: 'user', answeredBy: 'alice', optionKind: 'reject_once' });
  });

  it('refuses an unknown key and an optionId that was not offered', async () => {
    const h = setup();
    expect(h.broker.answer('nope', { choice: 'allow_once' })).toEqual({ ok: false, reason: 'unknown' });
    const p = h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('npm test', CODEX),
      roots: ROOTS,
    });
    expect(h.broker.answer('k1', { optionId: 'allow_once' })).toEqual({ ok: false, reason: 'not_offered' });
    expect(h.broker.answer('k1', { choice: 'maybe' } as never)).toEqual({ ok: false, reason: 'not_offered' });
    expect(h.broker.pending()).toHaveLength(1);
    expect(h.events).toHaveLength(0);
    expect(h.broker.answer('k1', { optionId: 'approved' }, 'carol')).toMatchObject({ ok: true, optionId: 'approved' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'approved' });
    expect(h.events[0]).toMatchObject({ decidedBy: 'user', optionKind: 'allow_once', answeredBy: 'carol' });
  });

  it('an allow intent with no allow option is refused and stays pending; a reject intent with no reject option answers cancelled', async () => {
    const h = setup();
    const onlyReject = h.broker.request({
      requestKey: 'a',
      sessionId: 's1',
      params: execParams('ls', [o('no', 'reject_once')]),
      roots: ROOTS,
    });
    expect(h.broker.answer('a', { choice: 'allow_always' })).toEqual({ ok: false, reason: 'not_offered' });
    expect(h.broker.pending()).toHaveLength(1);
    const onlyAllow = h.broker.request({
      requestKey: 'b',
      sessionId: 's1',
      params: execParams('ls', [o('yes', 'allow_once')]),
      roots: ROOTS,
    });
    expect(h.broker.answer('b', { choice: 'reject_once' })).toEqual({ ok: true, outcome: { outcome: 'cancelled' } });
    expect(await onlyAllow).toEqual({ outcome: 'cancelled' });
    h.broker.answer('a', { choice: 'reject_once' });
    expect(await onlyReject).toEqual({ outcome: 'selected', optionId: 'no' });
    expect(h.eventsFor('a')).toHaveLength(1);
    expect(h.eventsFor('b')).toHaveLength(1);
  });
});

describe('PermissionBroker — timeout fails closed', () => {
  it('chooses reject_once after timeoutMs', async () => {
    const h = setup({ timeoutMs: 5000 });
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params: execParams('npm test'), roots: ROOTS });
    expect([...h.timers.values()][0]!.ms).toBe(5000);
    h.fireAll();
    expect(await p).toEqual({ outcome: 'selected', optionId: 'deny' });
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({ decidedBy: 'timeout', optionKind: 'reject_once' });
    expect(h.broker.answer('k1', { choice: 'allow_once' })).toEqual({ ok: false, reason: 'already_answered' });
  });

  it('falls back to reject_always, then to cancelled', async () => {
    const h = setup();
    const a = h.broker.request({
      requestKey: 'a',
      sessionId: 's1',
      params: execParams('x', [o('y', 'allow_once'), o('never', 'reject_always')]),
      roots: ROOTS,
    });
    const b = h.broker.request({
      requestKey: 'b',
      sessionId: 's1',
      params: execParams('x', [o('y', 'allow_once'), o('y2', 'allow_always')]),
      roots: ROOTS,
    });
    h.fireAll();
    expect(await a).toEqual({ outcome: 'selected', optionId: 'never' });
    expect(await b).toEqual({ outcome: 'cancelled' });
    expect(h.events.map((e) => e.decidedBy)).toEqual(['timeout', 'timeout']);
  });

  it('a user answer cancels the timer, so a late timer fire does nothing', async () => {
    const h = setup();
    const fired: (() => void)[] = [];
    const broker = new PermissionBroker({
      getPolicy: () => ({ mode: 'ask', rules: [] }),
      setTimer: (fn) => {
        fired.push(fn);
        return () => {};
      },
      onDecision: (e) => h.events.push(e),
    });
    const p = broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    broker.answer('k', { choice: 'allow_once' });
    fired[0]!();
    expect(await p).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(h.events).toHaveLength(1);
  });

  it('the default timer really fires (1 ms)', async () => {
    const events: PermissionDecisionEvent[] = [];
    const broker = new PermissionBroker({
      getPolicy: () => ({ mode: 'ask', rules: [] }),
      timeoutMs: 1,
      onDecision: (e) => events.push(e),
    });
    expect(await broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS })).toEqual({
      outcome: 'selected',
      optionId: 'deny',
    });
    expect(events[0]!.decidedBy).toBe('timeout');
  });

  it('timeoutMs 0 disables the timeout', () => {
    const h = setup({ timeoutMs: 0 });
    void h.broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    expect(h.timers.size).toBe(0);
    expect(h.broker.closeAll()).toBe(1);
  });
});

describe('PermissionBroker — "always" answers remember a narrow rule', () => {
  it('allow_always on a command: same command auto-allowed, another still asks', async () => {
    const h = setup();
    const p = h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('npm run build'),
      roots: ROOTS,
    });
    expect(h.broker.answer('k1', { choice: 'allow_always' })).toMatchObject({ ok: true, optionId: 'allow_session' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'allow_session' });
    expect(h.added).toEqual([
      ['s1', { decision: 'allow', toolKind: 'execute', command: 'npm run build', source: 'always-answer' }],
    ]);

    const again = await h.broker.request({
      requestKey: 'k2',
      sessionId: 's1',
      params: execParams('npm run build', HERMES_CMD, 's1', 'perm-check-2'),
      roots: ROOTS,
    });
    expect(again).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(h.eventsFor('k2')[0]).toMatchObject({ decidedBy: 'policy', rule: h.added[0]![1] });

    void h.broker.request({ requestKey: 'k3', sessionId: 's1', params: execParams('npm run deploy'), roots: ROOTS });
    void h.broker.request({
      requestKey: 'k4',
      sessionId: 's1',
      params: execParams('npm run build && npm publish'),
      roots: ROOTS,
    });
    void h.broker.request({
      requestKey: 'k5',
      sessionId: 's2',
      params: execParams('npm run build', HERMES_CMD, 's2'),
      roots: ROOTS,
    });
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['k3', 'k4', 'k5']);
  });

  it('an explicit allow_always optionId also remembers; wildcards in the command stay literal', async () => {
    const h = setup();
    const p = h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: execParams('ls *.ts', GEMINI),
      roots: ROOTS,
    });
    h.broker.answer('k1', { optionId: 'proceed_always' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'proceed_always' });
    expect(
      await h.broker.request({
        requestKey: 'k2',
        sessionId: 's1',
        params: execParams('ls *.ts', GEMINI),
        roots: ROOTS,
      }),
    ).toEqual({
      outcome: 'selected',
      optionId: 'proceed_once',
    });
    void h.broker.request({ requestKey: 'k3', sessionId: 's1', params: execParams('ls a.ts', GEMINI), roots: ROOTS });
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['k3']);
  });

  it('allow_always on an edit with no "always" option answers allow_once and remembers the exact path', async () => {
    const h = setup();
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params: editParams('/ws/out.txt'), roots: ROOTS });
    expect(h.broker.answer('k1', { choice: 'allow_always' })).toMatchObject({ ok: true, optionId: 'allow_once' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(h.added[0]![1]).toEqual({
      decision: 'allow',
      toolKind: 'edit',
      pathGlob: '/ws/out\\.txt',
      source: 'always-answer',
    });
    expect(
      await h.broker.request({ requestKey: 'k2', sessionId: 's1', params: editParams('/ws/out.txt'), roots: ROOTS }),
    ).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    void h.broker.request({ requestKey: 'k3', sessionId: 's1', params: editParams('/ws/other.txt'), roots: ROOTS });
    void h.broker.request({ requestKey: 'k4', sessionId: 's1', params: editParams('/ws/outXtxt'), roots: ROOTS });
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['k3', 'k4']);
  });

  it('reject_always remembers a deny rule', async () => {
    const h = setup();
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params: execParams('make deploy'), roots: ROOTS });
    expect(h.broker.answer('k1', { choice: 'reject_always' })).toMatchObject({ ok: true, optionId: 'deny_always' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'deny_always' });
    expect(
      await h.broker.request({ requestKey: 'k2', sessionId: 's1', params: execParams('make deploy'), roots: ROOTS }),
    ).toEqual({ outcome: 'selected', optionId: 'deny' });
  });

  it('an always-allowed dangerous command still asks next time', async () => {
    const h = setup();
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params: execParams('rm -rf build'), roots: ROOTS });
    h.broker.answer('k1', { choice: 'allow_always' });
    await p;
    expect(h.added).toHaveLength(1);
    void h.broker.request({ requestKey: 'k2', sessionId: 's1', params: execParams('rm -rf build'), roots: ROOTS });
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['k2']);
  });

  it('remembers nothing when nothing narrow identifies the call', async () => {
    const h = setup();
    const params = {
      sessionId: 's1',
      toolCall: { toolCallId: 'mcp1', kind: 'other', title: 'mcp__x__y' },
      options: GEMINI,
    };
    const p = h.broker.request({ requestKey: 'k1', sessionId: 's1', params, roots: ROOTS });
    h.broker.answer('k1', { choice: 'allow_always' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'proceed_always' });
    expect(h.added).toHaveLength(0);
    expect(h.events[0]!.reason).toMatch(/nothing narrow/);
  });

  it('alwaysRule scopes multi-path subjects to exactly those paths', () => {
    const rule = alwaysRule(
      { sessionId: 's', toolCallId: 't', toolKind: 'move', paths: ['/ws/a,b.txt', '/ws/c.txt'], roots: ROOTS },
      'allow',
    );
    expect(rule).toEqual({
      decision: 'allow',
      source: 'always-answer',
      toolKind: 'move',
      pathGlob: '{/ws/a\\,b\\.txt,/ws/c\\.txt}',
    });
    expect(alwaysRule({ sessionId: 's', toolCallId: 't', paths: ['/ws/a'], roots: ROOTS }, 'allow')).toBeUndefined();
  });
});

describe('PermissionBroker — cancel and close', () => {
  it('cancelSession answers that session’s pending asks cancelled, and only those', async () => {
    const h = setup();
    const a = h.broker.request({ requestKey: 'a', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    const b = h.broker.request({ requestKey: 'b', sessionId: 's1', params: editParams('/ws/x'), roots: ROOTS });
    void h.broker.request({
      requestKey: 'c',
      sessionId: 's2',
      params: execParams('ls', HERMES_CMD, 's2'),
      roots: ROOTS,
    });
    expect(h.broker.cancelSession('s1')).toBe(2);
    expect(await a).toEqual({ outcome: 'cancelled' });
    expect(await b).toEqual({ outcome: 'cancelled' });
    expect(h.events.map((e) => [e.requestKey, e.decidedBy])).toEqual([
      ['a', 'cancel'],
      ['b', 'cancel'],
    ]);
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['c']);
    expect(h.timers.size).toBe(1);
    expect(h.broker.answer('a', { choice: 'allow_once' })).toEqual({ ok: false, reason: 'already_answered' });
  });

  it('cancelTurn answers only that turn', async () => {
    const h = setup();
    const a = h.broker.request({
      requestKey: 'a',
      sessionId: 's1',
      params: execParams('ls'),
      roots: ROOTS,
      turnId: 't1',
    });
    void h.broker.request({ requestKey: 'b', sessionId: 's1', params: execParams('pwd'), roots: ROOTS, turnId: 't2' });
    void h.broker.request({ requestKey: 'c', sessionId: 's1', params: execParams('id'), roots: ROOTS });
    expect(h.broker.cancelTurn('t1')).toBe(1);
    expect(await a).toEqual({ outcome: 'cancelled' });
    expect(h.broker.pending().map((x) => x.requestKey)).toEqual(['b', 'c']);
  });

  it('closeAll answers everything cancelled (decidedBy closed)', async () => {
    const h = setup();
    const ps = ['a', 'b'].map((k, i) =>
      h.broker.request({ requestKey: k, sessionId: `s${i}`, params: execParams('ls'), roots: ROOTS }),
    );
    expect(h.broker.closeAll()).toBe(2);
    expect(await Promise.all(ps)).toEqual([{ outcome: 'cancelled' }, { outcome: 'cancelled' }]);
    expect(h.events.map((e) => e.decidedBy)).toEqual(['closed', 'closed']);
    expect(h.timers.size).toBe(0);
    expect(h.broker.closeAll()).toBe(0);
    expect(h.events).toHaveLength(2);
  });
});

describe('PermissionBroker — never throws at the agent', () => {
  it.each([
    ['params null', null, /params is not an object/],
    ['no toolCall', { sessionId: 's1', options: HERMES_CMD }, /no toolCall/],
    ['no options', { sessionId: 's1', toolCall: { toolCallId: 't' } }, /no valid options/],
    ['empty options', { sessionId: 's1', toolCall: { toolCallId: 't' }, options: [] }, /no valid options/],
    [
      'junk options',
      { sessionId: 's1', toolCall: { toolCallId: 't' }, options: [{ kind: 'allow_once' }, 'x', null] },
      /no valid options/,
    ],
  ])('%s → cancelled plus one decision event', async (_name, params, reason) => {
    const h = setup({ mode: 'auto' });
    expect(await h.broker.request({ requestKey: 'k', sessionId: 's1', params, roots: ROOTS })).toEqual({
      outcome: 'cancelled',
    });
    expect(h.events).toHaveLength(1);
    expect(h.events[0]!.reason).toMatch(reason);
    expect(h.events[0]!.sessionId).toBe('s1');
    expect(h.asks).toHaveLength(0);
  });

  it('an answer given from inside the decision callback is refused (no second decision)', async () => {
    const results: unknown[] = [];
    const events: PermissionDecisionEvent[] = [];
    const broker: PermissionBroker = new PermissionBroker({
      getPolicy: () => ({ mode: 'ask', rules: [] }),
      setTimer: () => () => {},
      onDecision: (e) => {
        events.push(e);
        results.push(broker.answer(e.requestKey, { choice: 'allow_once' }));
      },
    });
    const p = broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    broker.answer('k', { choice: 'reject_once' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'deny' });
    expect(results).toEqual([{ ok: false, reason: 'already_answered' }]);
    expect(events).toHaveLength(1);
  });

  it('a throwing getPolicy falls back to asking', () => {
    const asks: PendingPermission[] = [];
    const broker = new PermissionBroker({
      getPolicy: () => {
        throw new Error('store down');
      },
      setTimer: () => () => {},
      onDecision: () => {},
      onAsk: (p) => asks.push(p),
    });
    void broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    expect(asks).toHaveLength(1);
  });

  it('throwing callbacks are logged, and the agent still gets its answer', async () => {
    const h = setup({ mode: 'auto', onDecisionThrows: true });
    expect(
      await h.broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS }),
    ).toEqual({ outcome: 'selected', optionId: 'allow_once' });
    expect(h.logged.some((m) => /onDecision/.test(m))).toBe(true);
    const broker = new PermissionBroker({
      getPolicy: () => ({ mode: 'ask', rules: [] }),
      setTimer: () => () => {},
      onDecision: () => {},
      onAsk: () => {
        throw new Error('ui down');
      },
      onRule: () => {
        throw new Error('store down');
      },
    });
    const p = broker.request({ requestKey: 'k', sessionId: 's1', params: execParams('ls'), roots: ROOTS });
    expect(broker.answer('k', { choice: 'allow_always' })).toMatchObject({ ok: true });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'allow_session' });
  });
});
