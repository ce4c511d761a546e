/**
 * Wire quirks of real agents, each from its recorded frames, played through the whole client stack.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageEntry, ToolCallEntry } from '../../../src/thread/types.js';
import { closeAll, recorded, replay, scratchDir, sentFrame, toolCalls, turnEntries, update } from './replay.js';

afterEach(closeAll);

describe('agent→client request ids', () => {
  it('codex-acp: a UUID string request id is answered with that same id (permission decided by policy)', async () => {
    const r = await replay('codex-acp', 'write', { permission: { mode: 'auto' } });
    const asked = recorded(r.lines, (m) => m.method === 'session/request_permission')[0]!;
    expect(asked.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    const s = await r.client.newSession({ cwd: scratchDir() });
    // codex announces the call in_progress, then asks with status pending: the call stays in_progress.
    const whileAsking: string[] = [];
    s.subscribe((e) => {
      const c = (e.type === 'entry.updated' ? e.entry : undefined) as ToolCallEntry | undefined;
      if (c?.kind === 'tool_call' && c.permission?.status === 'pending') whileAsking.push(c.status);
    });
    const res = await s.prompt('write').result;
    expect(res.stopReason).toBe('end_turn');
    expect(whileAsking).toEqual(['in_progress']);
    const answer = r.sent().find((m) => m.method === undefined && m.id === asked.id)!;
    // approved/abort: chosen by kind (allow_once), never by id.
    expect(answer.result).toEqual({ outcome: { outcome: 'selected', optionId: 'approved' } });
    const call = toolCalls(s, res)[0]!;
    expect(call.permission?.status).toBe('allowed');
  });
});

describe('updates before the session/new response', () => {
  it('copilot: updates for a session not yet known land in its thread once it exists', async () => {
    const r = await replay('copilot', 'session-new');
    const newAt = r.lines.findIndex(
      (l) => l.dir === 'agent->client' && (l.msg.result as { sessionId?: string } | undefined)?.sessionId,
    );
    const early = r.lines.slice(0, newAt).filter((l) => update(l.msg)?.sessionUpdate === 'available_commands_update');
    expect(early.length).toBeGreaterThan(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    expect(s.thread.availableCommands.length).toBeGreaterThan(0);
  });
});

describe('permission for a tool call that was not announced (yet)', () => {
  it('gemini-cli: a permission for a call never announced with tool_call creates one entry that carries it', async () => {
    const r = await replay('gemini-cli', 'write', { permission: { mode: 'auto' } });
    const asked = recorded(r.lines, (m) => m.method === 'session/request_permission')[0]!;
    const id = (asked.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;
    expect(
      recorded(r.lines, (m) => update(m)?.sessionUpdate === 'tool_call' && update(m)?.toolCallId === id),
    ).toHaveLength(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('write').result;
    const calls = toolCalls(s, res).filter((c) => c.toolCallId === id);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.permission).toMatchObject({ status: 'allowed', optionId: 'proceed_once' });
    expect(calls[0]!.status).toBe('completed');
  });

  it('kilo: a permission before its tool_call, then the tool_call: one entry, announced fields kept', async () => {
    const r = await replay('kilo', 'write', { permission: { mode: 'auto' } });
    const lines = r.lines;
    const askAt = lines.findIndex((l) => l.msg.method === 'session/request_permission');
    const id = (lines[askAt]!.msg.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;
    const callAt = lines.findIndex(
      (l) => update(l.msg)?.sessionUpdate === 'tool_call' && update(l.msg)?.toolCallId === id,
    );
    expect(callAt).toBeGreaterThan(askAt);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('write').result;
    const calls = toolCalls(s, res).filter((c) => c.toolCallId === id);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.permission?.status).toBe('allowed');
    expect(calls[0]!.toolKind).toBe('edit');
  });
});

describe('tool call shapes', () => {
  it('claude-code-acp: a second tool_call for one id is an update (one entry, refined input)', async () => {
    const r = await replay('claude-code-acp', 'shell');
    const ids = recorded(r.lines, (m) => update(m)?.sessionUpdate === 'tool_call').map((m) => update(m)!.toolCallId);
    expect(ids.length).toBeGreaterThan(new Set(ids).size);
    const s = await r.client.newSession({ cwd: scratchDir() });
    // Its Bash runs through the client's terminal (not offered here: the recorded result is replayed).
    s.subscribe((e) => e.type === 'permission.asked' && s.answerPermission(e.requestKey, { choice: 'allow_once' }));
    const res = await s.prompt('shell').result;
    const calls = toolCalls(s, res);
    expect(calls).toHaveLength(new Set(ids).size);
    expect(calls[0]!.rawInput).toMatchObject({ command: 'echo matrix-ok' });
  });

  it('claude-agent-acp: rawInput {} first, refined later; a _meta-only update changes nothing else', async () => {
    const r = await replay('claude-agent-acp', 'shell', { permission: { mode: 'auto' } });
    const first = recorded(r.lines, (m) => update(m)?.sessionUpdate === 'tool_call')[0]!;
    expect(update(first)!.rawInput).toEqual({});
    const metaOnly = recorded(r.lines, (m) => {
      const u = update(m);
      return (
        u?.sessionUpdate === 'tool_call_update' && Object.keys(u).sort().join() === '_meta,sessionUpdate,toolCallId'
      );
    });
    expect(metaOnly.length).toBeGreaterThan(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const seen: ToolCallEntry[] = [];
    s.subscribe(
      (e) =>
        (e.type === 'entry.updated' || e.type === 'entry.added') &&
        (e.entry as ToolCallEntry).kind === 'tool_call' &&
        seen.push(e.entry as ToolCallEntry),
    );
    const res = await s.prompt('shell').result;
    const call = toolCalls(s, res)[0]!;
    expect(call.rawInput).toMatchObject({ command: 'echo matrix-ok' });
    expect(call.title).toBe('echo matrix-ok');
    expect(call.status).toBe('completed');
    // No update ever degraded the title or the status back.
    expect(seen.some((c) => c.title === '' || c.rawInput === undefined)).toBe(false);
  });

  it('pi: pending updates with partial input while arguments stream end in the full input', async () => {
    const r = await replay('pi', 'shell');
    const pendings = recorded(
      r.lines,
      (m) => update(m)?.sessionUpdate === 'tool_call_update' && update(m)?.status === 'pending',
    );
    expect(pendings.length).toBeGreaterThan(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('shell').result;
    const calls = toolCalls(s, res);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.rawInput).toMatchObject({ command: 'echo matrix-ok' });
    expect(calls[0]!.status).toBe('completed');
  });
});

describe('chunks, extra fields, non-standard traffic', () => {
  it('claude-agent-acp and qwen-code: empty opening chunks never make an entry', async () => {
    for (const agent of ['claude-agent-acp', 'qwen-code']) {
      const r = await replay(agent, 'text');
      expect(
        recorded(r.lines, (m) => (update(m)?.content as { text?: string } | undefined)?.text === '').length,
      ).toBeGreaterThan(0);
      const s = await r.client.newSession({ cwd: scratchDir() });
      if (agent === 'qwen-code') await s.setMode('default');
      const res = await s.prompt('text').result;
      const msgs = turnEntries(s, res).filter((e): e is MessageEntry => e.kind === 'assistant_message');
      expect(msgs).toHaveLength(1);
      expect(msgs[0]!.text).toContain('matrix text probe');
    }
  });

  it('qwen-code: its craft/drainMidTurnQueue request is answered -32601 and the turn goes on', async () => {
    const r = await replay('qwen-code', 'shell', { permission: { mode: 'auto' } });
    const odd = recorded(r.lines, (m, dir) => dir === 'agent->client' && m.method === 'craft/drainMidTurnQueue')[0]!;
    expect(odd.id).toBeDefined();
    const s = await r.client.newSession({ cwd: scratchDir() });
    await s.setMode('default');
    const res = await s.prompt('shell').result;
    const answer = await sentFrame(r, (m) => m.method === undefined && m.id === odd.id);
    expect(answer.error?.code).toBe(-32601);
    expect(res.stopReason).toBe('end_turn');
  });

  it('claude-agent-acp (usage) and gemini-cli (_meta.quota): extra prompt result fields are kept', async () => {
    const c = await replay('claude-agent-acp', 'text');
    const cs = await c.client.newSession({ cwd: scratchDir() });
    const cr = await cs.prompt('text').result;
    expect((cr.response as { usage?: unknown }).usage).toBeDefined();
    const g = await replay('gemini-cli', 'text');
    const gs = await g.client.newSession({ cwd: scratchDir() });
    const gr = await gs.prompt('text').result;
    expect((gr.response as { _meta?: { quota?: unknown } })._meta?.quota).toBeDefined();
  });

  it('usage_update with cost (claude-agent-acp) and without (codex-acp): the context meter follows both', async () => {
    const c = await replay('claude-agent-acp', 'text');
    const cs = await c.client.newSession({ cwd: scratchDir() });
    await cs.prompt('text').result;
    expect(cs.thread.context).toMatchObject({ size: 200000, cost: { currency: 'USD' } });
    const x = await replay('codex-acp', 'write', { permission: { mode: 'auto' } });
    const xs = await x.client.newSession({ cwd: scratchDir() });
    await xs.prompt('write').result;
    expect(xs.thread.context.size).toBe(258400);
    expect(xs.thread.context.cost).toBeUndefined();
  });

  it('pi: session_info_update with only _meta is kept as thread meta, not as an entry', async () => {
    const r = await replay('pi', 'text');
    const metaOnly = recorded(
      r.lines,
      (m) =>
        update(m)?.sessionUpdate === 'session_info_update' && Object.keys(update(m)!).join() === 'sessionUpdate,_meta',
    );
    expect(metaOnly.length).toBeGreaterThan(0);
    const s = await r.client.newSession({ cwd: scratchDir() });
    const res = await s.prompt('text').result;
    expect(turnEntries(s, res).some((e) => e.kind === 'unknown')).toBe(false);
    expect(s.thread.meta).toMatchObject({ piAcp: { running: false } });
  });
});
