/**
 * The broker beyond the agent's own requests: symlinks resolved before the policy runs, the
 * effects Talaria performs for the agent (authorize), and answers that cover them (grants).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionBroker } from '../../src/permission/broker.js';
import {
  EFFECT_OPTIONS,
  type EffectRequest,
  type PendingPermission,
  type SetTimer,
} from '../../src/permission/broker-types.js';
import type { PolicyConfig } from '../../src/permission/policy.js';
import type {
  PermissionDecisionEvent,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from '../../src/permission/types.js';
import { until } from '../until.js';

let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'talaria-broker-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(ws, '.env'), 'KEY=1');
  symlinkSync(outside, join(ws, 'link'));
  symlinkSync(join(ws, '.env'), join(ws, 'notes'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function setup(mode: PermissionMode = 'ask', rules: PermissionRule[] = []) {
  const events: PermissionDecisionEvent[] = [];
  const asks: PendingPermission[] = [];
  const learned: PermissionRule[] = [];
  const timers: (() => void)[] = [];
  const setTimer: SetTimer = (fn) => {
    timers.push(fn);
    return () => void timers.splice(timers.indexOf(fn), 1);
  };
  const policy: PolicyConfig = { mode, rules };
  const broker = new PermissionBroker({
    getPolicy: () => ({ mode: policy.mode, rules: [...policy.rules, ...learned] }),
    onDecision: (e) => events.push(e),
    onAsk: (p) => asks.push(p),
    onRule: (_sid, r) => learned.push(r),
    setTimer,
  });
  /** Resolves once the broker has asked (path resolution is asynchronous). */
  const asked = (n = 1) => until(() => asks.length >= n);
  return { broker, events, asks, learned, timers, policy, asked };
}

const editRequest = (path: string, toolCallId = 'tc-1') => ({
  sessionId: 's1',
  toolCall: { toolCallId, kind: 'edit', title: `Edit ${path}`, locations: [{ path }] },
  options: [
    { optionId: 'yes', kind: 'allow_once' },
    { optionId: 'no', kind: 'reject_once' },
  ],
});

function effect(
  kind: 'fs.read' | 'fs.write' | 'terminal.create',
  target: string,
  extra: Partial<EffectRequest> = {},
  command?: string,
): EffectRequest {
  const subject: PermissionSubject = {
    sessionId: 's1',
    toolCallId: `effect-${kind}`,
    toolKind: kind === 'fs.read' ? 'read' : kind === 'fs.write' ? 'edit' : 'execute',
    title: `${kind} ${target}`,
    paths: [target],
    roots: [ws],
    effect: kind,
  };
  if (command) subject.command = command;
  return { requestKey: `s1:${kind}:${Math.random()}`, sessionId: 's1', subject, turnId: 'turn-1', ...extra };
}

describe('path resolution before the policy', () => {
  it('accept-edits asks for an edit through a workspace symlink that points outside', async () => {
    const h = setup('accept-edits');
    const p = h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: editRequest(join(ws, 'link', 'a.ts')),
      roots: [ws],
    });
    await h.asked();
    expect(h.asks[0]!.policy.reason).toMatch(/outside the session roots/);
    expect(h.asks[0]!.subject.realPaths).toEqual([join(outside, 'a.ts')]);
    h.broker.answer('k1', { choice: 'reject_once' });
    expect(await p).toEqual({ outcome: 'selected', optionId: 'no' });
  });

  it('accept-edits still allows a plain file inside', async () => {
    const h = setup('accept-edits');
    const out = await h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: editRequest(join(ws, 'src', 'a.ts')),
      roots: [ws],
    });
    expect(out).toEqual({ outcome: 'selected', optionId: 'yes' });
  });

  it('a harmless name that is a link to .env forces an ask, even in auto', async () => {
    const h = setup('auto');
    void h.broker.request({ requestKey: 'k1', sessionId: 's1', params: editRequest(join(ws, 'notes')), roots: [ws] });
    await h.asked();
    expect(h.asks[0]!.policy.forcedAsk).toBe('sensitive_path');
  });

  it('a cancel while paths are being resolved wins: no ask is left behind', async () => {
    const h = setup();
    const p = h.broker.request({
      requestKey: 'k1',
      sessionId: 's1',
      params: editRequest(join(ws, 'a.ts')),
      roots: [ws],
      turnId: 't',
    });
    expect(h.broker.cancelSession('s1')).toBe(1);
    expect(await p).toEqual({ outcome: 'cancelled' });
    expect(h.asks).toHaveLength(0);
    expect(h.events.map((e) => e.decidedBy)).toEqual(['cancel']);
  });
});

describe('authorize: effects Talaria performs for the agent', () => {
  it('a read inside the roots is allowed and audited, in ask mode', async () => {
    const h = setup('ask');
    const v = await h.broker.authorize(effect('fs.read', join(ws, 'a.ts')));
    expect(v).toMatchObject({ allowed: true, decidedBy: 'policy' });
    expect(h.asks).toHaveLength(0);
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({
      decidedBy: 'policy',
      optionKind: 'allow_once',
      subject: { effect: 'fs.read', toolKind: 'read' },
    });
  });

  it('a read of .env asks with Talaria\'s own options (no "always": a forced ask ignores it); reject refuses', async () => {
    const h = setup('auto');
    const v = h.broker.authorize(effect('fs.read', join(ws, '.env')));
    await h.asked();
    expect(h.asks[0]!.options.map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
    expect(h.broker.answer(h.asks[0]!.requestKey, { choice: 'reject_once' }, 'alice')).toMatchObject({ ok: true });
    expect(await v).toMatchObject({ allowed: false, decidedBy: 'user' });
    expect(h.events[0]).toMatchObject({ decidedBy: 'user', answeredBy: 'alice', optionKind: 'reject_once' });
  });

  it('a write in ask mode asks (allow once / always / reject); allow once allows', async () => {
    const h = setup('ask');
    const v = h.broker.authorize(effect('fs.write', join(ws, 'a.ts')));
    await h.asked();
    expect(h.asks[0]!.options).toEqual(EFFECT_OPTIONS);
    h.broker.answer(h.asks[0]!.requestKey, { choice: 'allow_once' });
    expect(await v).toMatchObject({ allowed: true, decidedBy: 'user' });
  });

  it('no answer: the timeout refuses (fails closed)', async () => {
    const h = setup('ask');
    const v = h.broker.authorize(effect('terminal.create', ws, {}, 'npm test'));
    await h.asked();
    h.timers[0]!();
    expect(await v).toMatchObject({ allowed: false, decidedBy: 'timeout' });
    expect(h.events[0]!.outcome).toEqual({ outcome: 'selected', optionId: 'reject_once' });
  });

  it('"always" remembers a narrow rule: the same write is then allowed by the policy', async () => {
    const h = setup('ask');
    const first = h.broker.authorize(effect('fs.write', join(ws, 'a.ts')));
    await h.asked();
    h.broker.answer(h.asks[0]!.requestKey, { choice: 'allow_always' });
    expect(await first).toMatchObject({ allowed: true });
    expect(h.learned[0]).toMatchObject({ decision: 'allow', toolKind: 'edit' });
    expect(await h.broker.authorize(effect('fs.write', join(ws, 'a.ts')))).toMatchObject({
      allowed: true,
      decidedBy: 'policy',
    });
    const other = h.broker.authorize(effect('fs.write', join(ws, 'b.ts')));
    await h.asked(2);
    h.broker.answer(h.asks[1]!.requestKey, { choice: 'reject_once' });
    expect(await other).toMatchObject({ allowed: false });
  });

  it('a deny rule refuses without asking', async () => {
    const h = setup('auto', [{ decision: 'deny', toolKind: 'execute', command: 'curl *' }]);
    expect(await h.broker.authorize(effect('terminal.create', ws, {}, 'curl x -o y'))).toMatchObject({
      allowed: false,
      decidedBy: 'policy',
    });
    expect(h.asks).toHaveLength(0);
  });

  it('a cancel answers a pending effect ask: refused', async () => {
    const h = setup('ask');
    const v = h.broker.authorize(effect('fs.write', join(ws, 'a.ts')));
    await h.asked();
    h.broker.cancelTurn('turn-1');
    expect(await v).toMatchObject({ allowed: false, decidedBy: 'cancel' });
  });
});

describe("grants: no double ask after the user allowed the agent's own request", () => {
  async function allowAgentEdit(h: ReturnType<typeof setup>, path: string, key = 'agent-1') {
    const before = h.asks.length;
    const p = h.broker.request({
      requestKey: key,
      sessionId: 's1',
      params: editRequest(path),
      roots: [ws],
      turnId: 'turn-1',
    });
    await h.asked(before + 1);
    h.broker.answer(key, { choice: 'allow_once' }, 'alice');
    await p;
  }
  const open = () => true;

  it('the write the agent asked about is covered (decided by grant, audited, not asked)', async () => {
    const h = setup('ask');
    await allowAgentEdit(h, join(ws, 'a.ts'));
    const v = await h.broker.authorize(effect('fs.write', join(ws, 'a.ts'), { toolCallOpen: open }));
    expect(v).toMatchObject({ allowed: true, decidedBy: 'grant' });
    expect(v.reason).toMatch(/agent-1/);
    expect(h.asks).toHaveLength(1);
    expect(h.events.at(-1)).toMatchObject({ decidedBy: 'grant', subject: { effect: 'fs.write' } });
  });

  it("never covers a forced ask: a sensitive file is asked again, in Talaria's words", async () => {
    const h = setup('ask');
    await allowAgentEdit(h, join(ws, '.envrc'));
    const v = h.broker.authorize(effect('fs.write', join(ws, '.envrc'), { toolCallOpen: open }));
    await h.asked(2);
    expect(h.asks[1]!.title).toBe(`fs.write ${join(ws, '.envrc')}`);
    h.broker.answer(h.asks[1]!.requestKey, { choice: 'allow_once' });
    expect(await v).toMatchObject({ allowed: true, decidedBy: 'user' });
  });

  it.each([
    ['another file', () => effect('fs.write', join(ws, 'b.ts'), { toolCallOpen: open })],
    ['the tool call has ended', () => effect('fs.write', join(ws, 'a.ts'), { toolCallOpen: () => false })],
    ['another turn', () => effect('fs.write', join(ws, 'a.ts'), { toolCallOpen: open, turnId: 'turn-2' })],
    ['no tool-call check given', () => effect('fs.write', join(ws, 'a.ts'))],
  ])('does not cover %s: asks', async (_name, make) => {
    const h = setup('ask');
    await allowAgentEdit(h, join(ws, 'a.ts'));
    const v = h.broker.authorize(make());
    await h.asked(2);
    h.broker.answer(h.asks[1]!.requestKey, { choice: 'reject_once' });
    expect(await v).toMatchObject({ allowed: false });
  });

  it('a rejected or policy-decided request grants nothing; a cancel forgets grants', async () => {
    const h = setup('ask');
    const p = h.broker.request({
      requestKey: 'agent-1',
      sessionId: 's1',
      params: editRequest(join(ws, 'a.ts')),
      roots: [ws],
      turnId: 'turn-1',
    });
    await h.asked();
    h.broker.answer('agent-1', { choice: 'reject_once' });
    await p;
    const v = h.broker.authorize(effect('fs.write', join(ws, 'a.ts'), { toolCallOpen: open }));
    await h.asked(2);
    h.broker.cancelSession('s1');
    expect(await v).toMatchObject({ allowed: false, decidedBy: 'cancel' });

    await allowAgentEdit(h, join(ws, 'c.ts'), 'agent-2');
    h.broker.cancelSession('s1');
    const after = h.broker.authorize(effect('fs.write', join(ws, 'c.ts'), { toolCallOpen: open }));
    await until(() => h.asks.length === 4);
    h.broker.answer(h.asks[3]!.requestKey, { choice: 'reject_once' });
    expect(await after).toMatchObject({ allowed: false });
  });

  it('a terminal with exactly the command the user allowed is covered; another command is not', async () => {
    const h = setup('ask');
    const params = {
      sessionId: 's1',
      toolCall: { toolCallId: 'bash-1', kind: 'execute', title: '`npm test`', rawInput: { command: 'npm test' } },
      options: [
        { optionId: 'ok', kind: 'allow_once' },
        { optionId: 'no', kind: 'reject_once' },
      ],
    };
    const p = h.broker.request({ requestKey: 'agent-1', sessionId: 's1', params, roots: [ws], turnId: 'turn-1' });
    h.broker.answer('agent-1', { choice: 'allow_once' });
    await p;
    const same = effect('terminal.create', ws, { toolCallOpen: open }, 'npm test');
    expect(await h.broker.authorize(same)).toMatchObject({ allowed: true, decidedBy: 'grant' });
    const more = h.broker.authorize(effect('terminal.create', ws, { toolCallOpen: open }, 'npm test; rm -rf ~'));
    await h.asked(2);
    expect(h.asks[1]!.policy.forcedAsk).toBe('dangerous_command');
    h.broker.answer(h.asks[1]!.requestKey, { choice: 'reject_once' });
    expect(await more).toMatchObject({ allowed: false });
  });

  it.each(['allow_once', 'allow_always'] as const)(
    "%s for `echo hi` covers the agent's terminal `CLAUDECODE=1 echo hi` (one question); `LD_PRELOAD=… echo hi` asks again",
    async (choice) => {
      const h = setup('ask');
      const toolCall = { toolCallId: 'bash-1', kind: 'execute', title: '`echo hi`', rawInput: { command: 'echo hi' } };
      const options = [
        { optionId: 'always', kind: 'allow_always' },
        { optionId: 'ok', kind: 'allow_once' },
        { optionId: 'no', kind: 'reject_once' },
      ];
      const p = h.broker.request({
        requestKey: 'agent-1',
        sessionId: 's1',
        params: { sessionId: 's1', toolCall, options },
        roots: [ws],
        turnId: 'turn-1',
      });
      await h.asked();
      h.broker.answer('agent-1', { choice }, 'alice');
      await p;
      expect(
        await h.broker.authorize(effect('terminal.create', ws, { toolCallOpen: open }, 'CLAUDECODE=1 echo hi')),
      ).toMatchObject({ allowed: true });
      expect(h.asks).toHaveLength(1);
      const risky = h.broker.authorize(
        effect('terminal.create', ws, { toolCallOpen: open }, 'LD_PRELOAD=/tmp/x.so echo hi'),
      );
      await h.asked(2);
      expect(h.asks[1]!.policy.forcedAsk).toBe('dangerous_command');
      h.broker.answer(h.asks[1]!.requestKey, { choice: 'reject_once' });
      expect(await risky).toMatchObject({ allowed: false });
    },
  );
});
