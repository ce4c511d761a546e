import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { replayWireLog, replayWireLogText } from '../../src/session/replay.js';
import { checkEvent, type SessionEvent } from '../../src/session/events.js';
import { hermesModelRows } from '../../src/providers/hermes/catalog.js';
import type { WireLogLine } from '../../src/protocol/types.js';
import type { ToolCallEntry } from '../../src/thread/types.js';

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/hermes-0.18.2/${name}`, import.meta.url)), 'utf8');
const hermes = { usageMode: 'cumulative' as const, modelRows: hermesModelRows, loadEmptyMeansNotFound: true };

function collect() {
  const events: SessionEvent[] = [];
  // Serialized as they fire, like the NDJSON writer (entries are live objects).
  return { events, onEvent: (e: SessionEvent) => events.push(JSON.parse(JSON.stringify(e)) as SessionEvent) };
}

const tools = (s: { thread: { entries: { kind: string }[] } }) =>
  s.thread.entries.filter((e): e is ToolCallEntry => e.kind === 'tool_call');

/** A tiny log builder: the frames a client and an agent would exchange. */
function log(...frames: [dir: 'c' | 'a', msg: Record<string, unknown>][]): WireLogLine[] {
  return frames.map(([d, msg], i) => ({
    t_ms: i * 10,
    dir: d === 'c' ? 'client->agent' : 'agent->client',
    msg: { jsonrpc: '2.0', ...msg },
  }));
}
const update = (sessionId: string, u: Record<string, unknown>) =>
  ['a', { method: 'session/update', params: { sessionId, update: u } }] as ['a', Record<string, unknown>];
const chunk = (sessionId: string, text: string) =>
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const opening = (sid = 's1') =>
  [
    ['c', { id: 1, method: 'initialize', params: { protocolVersion: 1 } }],
    ['a', { id: 1, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'fake', version: '1' } } }],
    ['c', { id: 2, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
    ['a', { id: 2, result: { sessionId: sid } }],
  ] as ['c' | 'a', Record<string, unknown>][];

describe('replayWireLog over the recorded Hermes fixtures', () => {
  it('tools.ndjson: the same thread and usage as the live client path, every event valid', async () => {
    const { events, onEvent } = collect();
    const r = await replayWireLogText(fixture('tools.ndjson'), { hooks: hermes, onEvent });
    expect(r.sessions).toHaveLength(1);
    const s = r.sessions[0]!;
    expect(r.agentInfo?.name).toBe('hermes-agent');
    expect(r.turns.map((t) => t.stopReason).every((x) => x === 'end_turn')).toBe(true);
    expect(r.turns[0]?.usage?.totalTokens).toBe(4936);
    expect(r.turns[1]?.usage?.totalTokens).toBe(7404 - 4936);
    expect(tools(s).find((t) => t.title === 'terminal: rm -rf /workspace/junkdir')?.status).toBe('failed');
    expect(s.openToolCalls()).toEqual([]);
    expect(s.thread.plan).toHaveLength(3);
    expect(s.catalog.mode?.currentId).toBe('dont_ask');
    for (const e of events) expect(checkEvent(e)).toBeNull();
    expect(events.filter((e) => e.type === 'turn.ended')).toHaveLength(r.turns.length);
    // Events carry the recorded clock: the first turn ends at its response's t_ms, and lasted as recorded.
    const firstEnd = events.find((e) => e.type === 'turn.ended');
    expect(firstEnd?.at).toBe(11_381);
    expect(r.turns[0]?.durationMs).toBe(11_381 - 5_429);
  });

  it('permissions: ask mode takes the recorded answers (decided by user)', async () => {
    const { events, onEvent } = collect();
    const r = await replayWireLogText(fixture('tools.ndjson'), { onEvent });
    const asked = events.filter((e) => e.type === 'permission.asked');
    const decided = events.filter((e) => e.type === 'permission.decided');
    expect(asked).toHaveLength(2);
    expect(decided.map((e) => [e.decidedBy, (e.outcome as { optionId?: string }).optionId])).toEqual([
      ['user', 'allow_once'],
      ['user', 'deny'],
    ]);
    expect(
      tools(r.sessions[0]!)
        .map((t) => t.permission?.status)
        .filter(Boolean),
    ).toEqual(['allowed', 'rejected']);
    expect(r.notes).toEqual([]);
  });

  it('permissions: auto mode re-decides by policy; a dangerous command still asks and takes the recorded answer', async () => {
    const { events, onEvent } = collect();
    const r = await replayWireLogText(fixture('tools.ndjson'), { onEvent, permission: { mode: 'auto' } });
    const decided = events.filter((e) => e.type === 'permission.decided');
    expect(decided.map((e) => e.decidedBy)).toEqual(['policy', 'user']);
    expect(events.filter((e) => e.type === 'permission.asked')).toHaveLength(1);
    expect(r.notes).toEqual([]);
  });

  it('permissions: a policy that disagrees with the recording is reported, not hidden', async () => {
    const r = await replayWireLogText(fixture('tools.ndjson'), {
      permission: { mode: 'ask', rules: [{ decision: 'deny' }] },
    });
    expect(r.notes.map((n) => n.code)).toContain('permission_mismatch');
  });

  it('reload.ndjson: load replays history; a second open of the same session does not duplicate it; fork opens another', async () => {
    const r = await replayWireLogText(fixture('reload.ndjson'), { hooks: hermes });
    expect(r.sessions.map((s) => s.id)).toEqual([
      '217209e8-e55d-4cbb-aad7-640f0207efd0',
      '61eb2cd6-4c9d-422a-b5b4-08a458869cd5',
    ]);
    const loaded = r.sessions[0]!;
    expect(tools(loaded).filter((t) => t.toolCallId === 'call_write_3')).toHaveLength(1);
    expect(loaded.catalog.model?.currentId).toBe('custom:fake-model');
  });

  it('noauth.ndjson: no session, the setup failure is a note', async () => {
    const r = await replayWireLogText(fixture('noauth.ndjson'));
    expect(r.sessions).toEqual([]);
    expect(r.notes).toEqual([
      expect.objectContaining({
        code: 'session_setup_failed',
        message: expect.stringContaining('No LLM provider configured'),
      }),
    ]);
  });

  it('main.ndjson: cancel keeps the text and ends cancelled; the refused unknown-session prompt is noted', async () => {
    const r = await replayWireLogText(fixture('main.ndjson'), { hooks: hermes });
    const s = r.sessions[0]!;
    expect(r.turns.map((t) => t.stopReason)).toContain('cancelled');
    const text = s.thread.entries
      .filter((e) => e.kind === 'assistant_message')
      .map((e) => (e as { text: string }).text)
      .join('|');
    expect(text).toContain('This reply streams slowly so ');
    expect(r.notes.map((n) => n.code)).toEqual(['unknown_session', 'session_setup_failed']);
  });
});

describe('replayWireLog edge cases', () => {
  it('a log that ends mid-turn ends like a dead agent: agent_crashed, session failed', async () => {
    const { events, onEvent } = collect();
    const r = await replayWireLog(
      log(
        ...opening(),
        ['c', { id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } }],
        chunk('s1', 'working'),
      ),
      { onEvent },
    );
    expect(r.turns[0]).toMatchObject({ stopReason: 'error', error: { code: 'agent_crashed' } });
    expect(r.sessions[0]!.state).toBe('failed');
    expect(r.notes.map((n) => n.code)).toEqual(['log_ended_open']);
    expect(events.map((e) => e.type)).toEqual([
      'session.state',
      'entry.added',
      'turn.started',
      'entry.added',
      'session.state',
      // The failed turn's notice, under the turn, as a live session stores it (session/turn-failure.ts).
      'entry.added',
      'turn.ended',
    ]);
    const notice = events.filter((e) => e.type === 'entry.added').at(-1) as { entry: { kind: string; code: string } };
    expect(notice.entry).toMatchObject({ kind: 'notice', code: 'turn_failed' });
  });

  it('updates that arrive before the session/new answer are kept (like the live client)', async () => {
    const lines = log(
      ['c', { id: 2, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }],
      update('early', {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'x', description: 'y' }],
      }),
      ['a', { id: 2, result: { sessionId: 'early' } }],
    );
    const r = await replayWireLog(lines);
    expect(r.sessions[0]!.thread.availableCommands).toHaveLength(1);
  });

  it('session/cancel + a cancelled answer: the turn is cancelled and the streamed text stays', async () => {
    const r = await replayWireLog(
      log(
        ...opening(),
        [
          'c',
          { id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'slow' }] } },
        ],
        chunk('s1', 'partial '),
        ['c', { method: 'session/cancel', params: { sessionId: 's1' } }],
        ['a', { id: 3, result: { stopReason: 'cancelled' } }],
      ),
    );
    expect(r.turns[0]?.stopReason).toBe('cancelled');
    expect(r.sessions[0]!.thread.entries.at(-1)).toMatchObject({ kind: 'assistant_message', text: 'partial ' });
    expect(r.sessions[0]!.state).toBe('idle');
  });

  it('an error answer fails the turn with agent_error; a set_model the catalog cannot plan still applies', async () => {
    const r = await replayWireLog(
      log(
        ...opening(),
        ['c', { id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'x' }] } }],
        ['a', { id: 3, error: { code: -32603, message: 'Internal error', data: { details: 'boom' } } }],
        ['c', { id: 4, method: 'session/set_model', params: { sessionId: 's1', modelId: 'm2' } }],
        ['a', { id: 4, result: {} }],
      ),
    );
    expect(r.turns[0]).toMatchObject({
      stopReason: 'error',
      error: { code: 'agent_error', message: 'Internal error: boom' },
    });
    expect(r.notes.map((n) => n.code)).toEqual(['request_failed']); // no model selector to plan with
    expect(r.sessions[0]!.state).toBe('idle');
  });

  it('a prompt the session refuses (empty) is a note, and the replay goes on', async () => {
    const r = await replayWireLog(
      log(
        ...opening(),
        ['c', { id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } }],
        ['a', { id: 3, error: { code: -32602, message: 'Invalid params' } }],
        ['c', { id: 4, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'ok' }] } }],
        ['a', { id: 4, result: { stopReason: 'end_turn' } }],
      ),
    );
    expect(r.notes.map((n) => [n.code, n.line])).toEqual([['request_failed', 5]]);
    expect(r.turns.map((t) => t.stopReason)).toEqual(['end_turn']);
  });

  it('bad lines become notes and are skipped', async () => {
    const text = [
      'not json',
      JSON.stringify({ t_ms: 0, dir: 'sideways', msg: {} }),
      ...log(...opening()).map((l) => JSON.stringify(l)),
    ].join('\n');
    const r = await replayWireLogText(text);
    expect(r.notes.filter((n) => n.code === 'bad_line').map((n) => n.line)).toEqual([1, 2]);
    expect(r.sessions).toHaveLength(1);
  });
});
