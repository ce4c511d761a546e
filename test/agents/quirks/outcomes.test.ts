/**
 * One normalized outcome across real agents, each from its recorded frames: model errors, auth
 * gaps, cancels, permission choices, silent hangs, catalogs and the gemini fs switch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isTalariaError } from '../../../src/protocol/errors.js';
import type { AgentErrorData } from '../../../src/session/errors.js';
import type { Session } from '../../../src/session/session.js';
import { Recorder } from '../matrix/recorder.js';
import type { LoggedRequest } from '../fake-model/types.js';
import { modelSide } from '../matrix/scenarios.js';
import { watchTurn } from '../matrix/watchdog.js';
import { closeAll, recorded, replay, scratchDir, sentFrame, toolCalls, update } from './replay.js';

afterEach(closeAll);

/** Resolves once the running turn shows a tool call. */
function toolAnnounced(s: Session): Promise<void> {
  return new Promise((resolve) => {
    const has = () => s.thread.entries.some((e) => e.kind === 'tool_call' && e.turnId === s.running?.id);
    if (has()) return resolve();
    const off = s.subscribe(() => has() && (off(), resolve()));
  });
}

const DETAIL = 'Fake model: invalid request (steered by [[error: 400]])';

describe('a model HTTP 400 becomes one agent_error shape', () => {
  const cases: [string, Partial<AgentErrorData>][] = [
    ['claude-agent-acp', { rpcCode: -32603, httpStatus: 400, detail: DETAIL }], // "API Error: 400 {json}" in the message
    ['codex-acp', { rpcCode: -32603, detail: DETAIL }], // JSON body in data.message
    ['qwen-code', { rpcCode: -32603, httpStatus: 400, detail: `400 ${DETAIL}` }], // data.details
    ['opencode', { rpcCode: -32603, service: 'session', errorName: 'APIError' }], // data.{service,errorName}
    ['gemini-cli', { rpcCode: 400, httpStatus: 400, detail: DETAIL }], // HTTP status as the JSON-RPC code
  ];
  for (const [agent, want] of cases) {
    it(`${agent}: detail and status found where the agent put them`, async () => {
      const r = await replay(agent, agent === 'claude-agent-acp' ? 'error-then-cancel' : 'error-400');
      const s = await r.client.newSession({ cwd: scratchDir() });
      const res = await s.prompt('fail').result;
      expect(res.stopReason).toBe('error');
      expect(res.error?.code).toBe('agent_error');
      expect(res.error?.message).toContain('Fake model: invalid request');
      expect(res.error?.data).toMatchObject({ source: 'rpc', ...want });
    });
  }

  it('copilot: "Error: 400 …" streamed as the answer with end_turn is classified by its hook', async () => {
    const r = await replay('copilot', 'error-400');
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('fail').result;
    expect(res.agentStopReason).toBe('end_turn');
    expect(res.error).toMatchObject({
      code: 'agent_error',
      data: { source: 'text', httpStatus: 400, detail: `Error: 400 ${DETAIL}` },
    });
    expect(s.thread.entries.some((e) => e.kind === 'notice' && e.code === 'agent_error')).toBe(true);
  });

  it('pi: a swallowed error (end_turn, nothing said) is still reported as agent_error', async () => {
    const r = await replay('pi', 'error-400');
    expect(recorded(r.lines, (m) => (update(m)?.sessionUpdate ?? '').endsWith('_chunk'))).toHaveLength(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('fail').result;
    expect(res.agentStopReason).toBe('end_turn');
    expect(res.error).toMatchObject({ code: 'agent_error', data: { source: 'silence' } });
  });
});

describe('auth required becomes a readiness gap listing the auth methods', () => {
  const atNew: [string, string[]][] = [
    ['codex-acp', ['chatgpt', 'codex-api-key', 'openai-api-key']], // from initialize
    ['gemini-cli', ['oauth-personal', 'gemini-api-key', 'vertex-ai', 'gateway']], // from initialize
    ['copilot', ['copilot-login']], // _meta.terminal-auth, from initialize
    ['qwen-code', ['openai']], // from error.data.authMethods
    ['pi', ['pi_terminal_login']], // from error.data.authMethods
  ];
  for (const [agent, ids] of atNew) {
    it(`${agent}: session/new -32000 → auth_required with ${ids.join(', ')}`, async () => {
      const r = await replay(agent, 'no-credentials');
      const err = await r.client.newSession({ cwd: scratchDir() }).catch((e: unknown) => e);
      expect(isTalariaError(err, 'auth_required')).toBe(true);
      const methods = (err as { details: { authMethods: { id: string }[] } }).details.authMethods.map((m) => m.id);
      expect(methods).toEqual(ids);
      expect((err as Error).message).toContain(ids[0]);
    });
  }

  it('claude-agent-acp: the session opens and the first prompt fails -32000 → auth_required with claude-login', async () => {
    const r = await replay('claude-agent-acp', 'no-credentials');
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('hi').result;
    expect(res.error?.code).toBe('auth_required');
    expect((res.error?.data as { authMethods: { id: string }[] }).authMethods.map((m) => m.id)).toEqual([
      'claude-login',
    ]);
  });

  it('claude-agent-acp: the terminal-auth capability is what makes it list a method at all', async () => {
    const r = await replay('claude-agent-acp', 'no-credentials');
    const init = r.sent().find((m) => m.method === 'initialize')!;
    expect((init.params as { clientCapabilities: { _meta?: unknown } }).clientCapabilities._meta).toEqual({
      'terminal-auth': true,
    });
  });

  it('cursor: "not authenticated" as answer text with end_turn → auth_required naming its login command', async () => {
    const r = await replay('cursor', 'text');
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('hi').result;
    expect(res.error?.code).toBe('auth_required');
    expect((res.error?.data as { authMethods: { name: string }[] }).authMethods.map((m) => m.name)).toEqual([
      'cursor-agent login',
    ]);
  });
});

describe('after a cancel every tool call is settled cancelled, whatever the agent reported', () => {
  // What each agent said about its killed tool after session/cancel: completed, or nothing at all.
  const cases: [string, 'completed' | 'failed' | 'nothing'][] = [
    ['opencode', 'completed'],
    ['kilo', 'completed'],
    ['codex-acp', 'failed'],
    ['copilot', 'nothing'],
  ];
  for (const [agent, reported] of cases) {
    it(`${agent}: the killed tool (agent reported ${reported} after the cancel) ends cancelled`, async () => {
      const r = await replay(agent, 'cancel', { permission: { mode: 'auto' } });
      const cancelAt = r.lines.findIndex((l) => l.msg.method === 'session/cancel');
      const after = r.lines
        .slice(cancelAt)
        .map((l) => update(l.msg)?.status)
        .filter((x) => x === 'completed' || x === 'failed');
      if (reported === 'nothing') expect(after).toEqual([]);
      else expect(after.length > 0 && after.every((x) => x === reported)).toBe(true);
      const s = await r.client.newSession({ cwd: scratchDir() });
      const turn = s.prompt('long tool');
      // Cancel once the tool is announced: the player holds what follows until session/cancel arrives.
      await toolAnnounced(s);
      await s.cancel();
      const res = await turn.result;
      expect(res.stopReason).toBe('cancelled');
      const calls = toolCalls(s, res);
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) expect(c).toMatchObject({ status: 'cancelled', settledBy: 'cancel' });
    });
  }

  it('claude-agent-acp: an unsettled tool is cancelled; the next prompt first reopens the session (stale stream)', async () => {
    const r = await replay('claude-agent-acp', 'error-then-cancel', { permission: { mode: 'auto' } });
    const s = await r.client.newSession({ cwd: scratchDir() });
    const failed = await s.prompt('fail').result;
    expect(failed.error?.code).toBe('agent_error');
    const turn = s.prompt('long tool');
    await toolAnnounced(s);
    const order = r
      .sent()
      .map((m) => m.method)
      .filter((m) => m?.startsWith('session/'));
    expect(order.slice(-3)).toEqual(['session/close', 'session/resume', 'session/prompt']);
    await s.cancel();
    const res = await turn.result;
    expect(res.stopReason).toBe('cancelled');
    for (const c of toolCalls(s, res)) expect(c).toMatchObject({ status: 'cancelled', settledBy: 'cancel' });
  });

  it('claude-code-acp: after a rejected permission the session is resumed before the next prompt', async () => {
    const r = await replay('claude-code-acp', 'deny-then-error', {
      permission: { mode: 'ask', rules: [{ decision: 'deny', command: 'touch *' }] },
    });
    const s = await r.client.newSession({ cwd: scratchDir() });
    const denied = await s.prompt('deny').result;
    expect(toolCalls(s, denied)[0]!.permission).toMatchObject({ status: 'rejected', optionKind: 'reject_once' });
    const next = await s.prompt('fail').result;
    expect(r.sent().some((m) => m.method === 'session/resume')).toBe(true);
    expect(next.error?.message).toContain('Fake model: invalid request');
  });
});

describe('permission options are chosen by kind, never by id', () => {
  const cases: [string, string, string][] = [
    ['codex-acp', 'write', 'approved'],
    ['gemini-cli', 'write', 'proceed_once'],
    ['kilo', 'write', 'once'],
    ['qwen-code', 'write', 'proceed_once'],
  ];
  for (const [agent, name, optionId] of cases) {
    it(`${agent}: allow by policy answers ${optionId}`, async () => {
      const r = await replay(agent, name, { permission: { mode: 'auto' } });
      const asked = recorded(r.lines, (m) => m.method === 'session/request_permission')[0]!;
      const s = await r.client.newSession({ cwd: scratchDir() });
      if (agent === 'qwen-code') await s.setMode('default');
      void s.prompt('write');
      const answer = await sentFrame(r, (m) => m.method === undefined && m.id === asked.id);
      expect(answer.result).toEqual({ outcome: { outcome: 'selected', optionId } });
    });
  }

  it('claude-code-acp: a deny rule answers its reject option ("reject")', async () => {
    const r = await replay('claude-code-acp', 'deny-then-error', {
      permission: { mode: 'ask', rules: [{ decision: 'deny', command: 'touch *' }] },
    });
    const asked = recorded(r.lines, (m) => m.method === 'session/request_permission')[0]!;
    const s = await r.client.newSession({ cwd: scratchDir() });
    void s.prompt('deny');
    const answer = await sentFrame(r, (m) => m.method === undefined && m.id === asked.id);
    expect(answer.result).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
  });
});

describe('a silent hang is caught by the stall watchdog', () => {
  for (const agent of ['opencode', 'kilo']) {
    it(`${agent} without credentials: no frame during the turn → stalled with a clear message, turn cancelled`, async () => {
      const rec = new Recorder();
      const r = await replay(agent, 'no-credentials', { onFrame: rec.onFrame });
      const s = await r.client.newSession({ cwd: scratchDir() });
      const { result, stalled } = await watchTurn(s, s.prompt('hi'), rec, 300);
      expect(stalled?.code).toBe('stalled');
      expect(stalled?.message).toMatch(/sent nothing for \d+ s during a turn .*credentials/);
      expect(r.sent().some((m) => m.method === 'session/cancel')).toBe(true);
      expect(result.stopReason).toBe('cancelled');
    });
  }
});

describe('a stalled matrix turn says what the fake model saw', () => {
  it('no request (the agent hung before asking), or the last request and whether it was answered', () => {
    const req = (done: boolean) =>
      ({ api: 'openai-chat', action: { kind: 'text' }, status: 200, done }) as unknown as LoggedRequest;
    expect(modelSide({ requests: [req(true)] }, 1)).toBe('the fake model got no request in the turn');
    expect(modelSide({ requests: [req(true), req(true), req(false)] }, 1)).toBe(
      'the fake model got 2 request(s) in the turn, the last (openai-chat text, 200) not answered yet',
    );
  });
});

describe('session setup shapes', () => {
  it('configOptions-only (opencode, codex) and modes/models (claude, gemini) both give a model catalog', async () => {
    for (const [agent, name] of [
      ['opencode', 'error-400'],
      ['codex-acp', 'error-400'],
      ['claude-agent-acp', 'text'],
      ['gemini-cli', 'text'],
    ] as const) {
      const r = await replay(agent, name);
      const newRes = recorded(
        r.lines,
        (m, dir) => dir === 'agent->client' && !!(m.result as { sessionId?: string } | undefined)?.sessionId,
      )[0]!.result as Record<string, unknown>;
      const s = await r.client.newSession({ cwd: scratchDir() });
      expect(s.catalog.model?.options.length, agent).toBeGreaterThan(0);
      if (agent === 'opencode' || agent === 'codex-acp') expect(newRes.models ?? newRes.modes).toBeUndefined();
      else expect(newRes.models ?? newRes.modes).toBeDefined();
    }
  });

  it('gemini-cli: its quirk set (from the name it gives) switches fs.readTextFile off in initialize, writes stay on', async () => {
    const r = await replay('gemini-cli', 'write', { offerCaps: true });
    expect(r.quirks?.choice).toMatchObject({ set: { id: 'gemini-cli' }, basis: 'agent' });
    // Nothing named it before initialize: the first connection got the generic capabilities and was replaced.
    expect(r.restartedFrom?.choice.set.id).toBe('generic');
    const init = r.sent().find((m) => m.method === 'initialize')!;
    expect((init.params as { clientCapabilities: { fs: unknown } }).clientCapabilities.fs).toEqual({
      readTextFile: false,
      writeTextFile: true,
    });
  });
});
