import { describe, it, expect } from 'vitest';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { snapshot, threadFromSnapshot, toMarkdown } from '../../src/thread/index.js';
import type { Entry, MessageEntry, Thread, ToolCallEntry } from '../../src/thread/types.js';
import { fixtureActions, fixturePath, firstSessionId, readFixture, replay, replayFixture } from './fixture-actions.js';

const FILES = readdirSync(dirname(fixturePath('main.ndjson')))
  .filter((f) => f.endsWith('.ndjson'))
  .sort();

const messages = (t: Thread, kind: MessageEntry['kind']) =>
  t.entries.filter((e): e is MessageEntry => e.kind === kind).map((e) => e.text);
/** One line per entry: `tool:<id>` or `<kind>:<text>`. */
const label = (e: Entry, n = Infinity): string =>
  e.kind === 'tool_call'
    ? `tool:${e.toolCallId}`
    : `${e.kind}:${'text' in e ? e.text.trim().slice(0, n) : e.sessionUpdate}`;
const call = (t: Thread, id: string): ToolCallEntry => {
  const e = t.entries.find((x) => x.kind === 'tool_call' && x.toolCallId === id);
  if (!e || e.kind !== 'tool_call') throw new Error(`no tool call ${id}`);
  return e;
};

describe('every recorded Hermes fixture replays cleanly', () => {
  it('finds the fixtures', () => {
    expect(FILES).toEqual(['main.ndjson', 'noauth.ndjson', 'profile.ndjson', 'reload.ndjson', 'tools.ndjson']);
  });

  it.each(FILES)('%s: no unknown entries, nothing left open, snapshot round-trips, markdown renders', (file) => {
    const t = replayFixture(file);
    expect(t.entries.filter((e) => e.kind === 'unknown')).toEqual([]);
    // Every turn ended in these recordings, so no tool call may stay open.
    expect(
      t.entries.filter((e) => e.kind === 'tool_call' && (e.status === 'pending' || e.status === 'in_progress')),
    ).toEqual([]);
    const back = threadFromSnapshot(JSON.parse(JSON.stringify(snapshot(t))));
    expect(snapshot(back)).toEqual(JSON.parse(JSON.stringify(snapshot(t))));
    expect(toMarkdown(t)).toBe(toMarkdown(back));
  });
});

describe('tools.ndjson', () => {
  const t = replayFixture('tools.ndjson');

  it('read and write calls Hermes never completed are settled at turn end and keep their titles', () => {
    expect(call(t, 'tc-ab1a790290b6')).toMatchObject({
      title: 'read: /workspace/notes.txt',
      toolKind: 'read',
      status: 'completed',
      settledBy: 'turn_end',
      turnId: '3',
    });
    expect(call(t, 'tc-7f66c32ab55b')).toMatchObject({
      title: 'write: /workspace/out.txt',
      toolKind: 'edit',
      status: 'completed',
      settledBy: 'turn_end',
    });
    expect(call(t, 'tc-9472f9880a53')).toMatchObject({
      title: 'write: /workspace/out2.txt',
      status: 'completed',
      settledBy: 'turn_end',
      turnId: '5',
    });
    expect(call(t, 'tc-9472f9880a53').content).toEqual([
      { newText: 'second file\n', path: '/workspace/out2.txt', type: 'diff' },
    ]);
  });

  it('the terminal call is completed by the agent, with its output and its start title', () => {
    const term = call(t, 'tc-20eb36fe7fc4');
    expect(term).toMatchObject({
      title: 'terminal: echo hello-from-terminal',
      toolKind: 'execute',
      status: 'completed',
      settledBy: 'agent',
    });
    expect(JSON.stringify(term.content)).toContain('hello-from-terminal\\n- **exit_code:** 0');
  });

  it('the denied rm -rf call is failed by the agent; its synthetic permission call is rejected and failed', () => {
    expect(call(t, 'tc-a6f8cc9d9795')).toMatchObject({
      title: 'terminal: rm -rf /workspace/junkdir',
      status: 'failed',
      settledBy: 'agent',
    });
    expect(call(t, 'perm-check-1')).toMatchObject({
      title: 'delete in root path: rm -rf /workspace/junkdir',
      toolKind: 'execute',
      status: 'failed',
      settledBy: 'turn_end',
      turnId: '6',
      permission: { requestId: 1, status: 'rejected', optionId: 'deny', optionKind: 'reject_once' },
    });
  });

  it('the edit approval (synthetic id) is allowed and settled', () => {
    expect(call(t, 'edit-approval-1')).toMatchObject({
      title: 'Approve edit: /workspace/out.txt',
      status: 'completed',
      settledBy: 'turn_end',
      permission: { requestId: 0, status: 'allowed', optionId: 'allow_once', optionKind: 'allow_once' },
    });
  });

  it('the plan has 3 entries and the todo tool call is completed', () => {
    expect(t.plan).toEqual([
      { content: 'Inspect notes', priority: 'medium', status: 'completed' },
      { content: 'Write summary', priority: 'medium', status: 'in_progress' },
      { content: 'Ship it', priority: 'medium', status: 'pending' },
    ]);
    expect(call(t, 'tc-652ab890c975')).toMatchObject({
      title: 'todo (3 items)',
      status: 'completed',
      settledBy: 'agent',
    });
  });

  it('thought and answer are separate entries of the THINK turn', () => {
    expect(messages(t, 'thought')).toEqual(['Let me think about this carefully. ']);
    const last = t.entries.slice(-2);
    expect(last.map((e) => [e.kind, e.turnId])).toEqual([
      ['thought', '8'],
      ['assistant_message', '8'],
    ]);
    expect((last[1] as MessageEntry).text).toBe('Thought about it: the answer is 42. ');
  });

  it('the whole thread, in order', () => {
    expect(t.entries.map((e) => label(e))).toEqual([
      'user_message:TOOLS: read notes, echo, write out.txt',
      'tool:tc-ab1a790290b6',
      'tool:tc-20eb36fe7fc4',
      'tool:tc-7f66c32ab55b',
      'tool:edit-approval-1',
      'assistant_message:All three tools ran. Done.',
      'user_message:EDIT2 in dont_ask mode',
      'tool:tc-9472f9880a53',
      'assistant_message:Second edit done.',
      'user_message:DANGER: remove junkdir',
      'tool:tc-a6f8cc9d9795',
      'tool:perm-check-1',
      'assistant_message:Dangerous step finished.',
      'user_message:TODO: make a plan',
      'tool:tc-652ab890c975',
      'assistant_message:Plan recorded.',
      'user_message:THINK about it',
      'thought:Let me think about this carefully.',
      'assistant_message:Thought about it: the answer is 42.',
    ]);
    expect(t.context).toEqual({ used: 11521, size: 131072 });
    expect(t.availableCommands.length).toBeGreaterThan(5);
  });
});

describe('main.ndjson', () => {
  const t = replayFixture('main.ndjson');

  it('streamed chunks form one assistant message per turn', () => {
    expect(messages(t, 'user_message')).toEqual([
      'hello there',
      'TOOLS: read notes, echo, write out.txt',
      '/help',
      'SLOW please',
      'OVERFLOW now',
      'AUTHFAIL now',
    ]);
    expect(messages(t, 'assistant_message')[0]).toBe('Hello from the fake model! You said: hello there');
    expect(messages(t, 'assistant_message')[2]).toMatch(/^Available commands:\n/);
  });

  it('the cancelled SLOW turn keeps its streamed text', () => {
    const i = t.entries.findIndex((e) => e.kind === 'user_message' && e.text === 'SLOW please');
    expect(t.entries[i + 1]).toMatchObject({
      kind: 'assistant_message',
      turnId: '10',
      text: 'This reply streams slowly so ',
    });
  });

  it('overflow and 401 errors are plain assistant messages (Hermes reports errors as text)', () => {
    const texts = t.entries
      .filter((e) => e.kind === 'assistant_message')
      .map((e) => [e.turnId, (e as MessageEntry).text]);
    expect(texts).toContainEqual(['11', 'Context length exceeded: max compression attempts (3) reached.']);
    expect(texts).toContainEqual(['12', 'HTTP 401: Incorrect API key provided: sk-local***']);
  });

  it('the read call is settled, the terminal completed by the agent, title and usage tracked', () => {
    expect(call(t, 'tc-a20ae11c1b55')).toMatchObject({
      title: 'read: /workspace/notes.txt',
      status: 'completed',
      settledBy: 'turn_end',
    });
    expect(call(t, 'tc-ae2b08080c55')).toMatchObject({ status: 'completed', settledBy: 'agent' });
    expect(call(t, 'tc-7fd6a195981e')).toMatchObject({
      title: 'write: /workspace/out.txt',
      status: 'completed',
      settledBy: 'turn_end',
    });
    expect(t.title).toBe('Fake title');
    expect(t.updatedAt).toBe('2026-11-30T01:19:02.921700+00:00');
    expect(t.meta).toMatchObject({ hermes: { sessionProvenance: { sessionKind: 'root' } } });
    // size shrank after the overflow
    expect(t.context).toEqual({ used: 10865, size: 8192 });
  });

  it('a prompt to another session (refusal) and the unknown-session load add nothing', () => {
    const ids = new Set(t.entries.map((e) => e.turnId));
    expect([...ids]).toEqual(['3', '4', '5', '10', '11', '12']);
    expect(
      fixtureActions(readFixture('main.ndjson'), { sessionId: 'no-such-session' }).map((a) => a.action.type),
    ).toEqual(['turn.started', 'turn.ended']);
  });
});

describe('reload.ndjson', () => {
  const lines = readFixture('reload.ndjson');
  const actions = fixtureActions(lines);
  const load = replay(actions.filter((a) => a.within?.method === 'session/load')).thread;
  const resume = replay(actions.filter((a) => a.within?.method === 'session/resume')).thread;

  it('the load replay (user chunks, agent chunks, provider call_… ids) forms the right entries', () => {
    expect(firstSessionId(lines)).toBe('217209e8-e55d-4cbb-aad7-640f0207efd0');
    expect(
      load.entries.map((e) =>
        e.kind === 'tool_call' ? `tool:${e.toolCallId}:${e.status}:${e.settledBy}` : label(e, 30),
      ),
    ).toEqual([
      'assistant_message:[PRIOR CONTEXT — for reference',
      'tool:call_write_3:completed:agent',
      'assistant_message:All three tools ran. Done.',
      'user_message:SLOW please',
      'assistant_message:This reply streams slowly so',
      // Two user chunks in a row, no messageId: one message (as in Zed; Hermes itself merges a
      // failed prompt into the next one).
      'user_message:OVERFLOW nowAUTHFAIL now',
    ]);
    expect(call(load, 'call_write_3')).toMatchObject({ title: 'write: /workspace/out.txt', toolKind: 'edit' });
    expect(JSON.stringify(call(load, 'call_write_3').content)).toContain('write_file completed');
    expect(load.entries.every((e) => e.turnId === undefined)).toBe(true);
  });

  it('resume replays the same history: same thread when reduced into a fresh one', () => {
    expect(snapshot(resume).entries).toEqual(snapshot(load).entries);
  });

  it('reducing both replays into ONE thread would corrupt it (why a load must start a fresh thread)', () => {
    const both = replay(actions.filter((a) => a.within !== undefined)).thread;
    // The second replay's tool_call hits the known id (an update, no new entry), so the run stays
    // open and the summary and the next answer merge.
    expect(both.entries.filter((e) => e.kind === 'tool_call')).toHaveLength(1);
    expect(both.entries).toHaveLength(10);
    expect((both.entries[6] as MessageEntry).text).toMatch(/^\[PRIOR CONTEXT[\s\S]*All three tools ran\. Done\.$/);
  });

  it('after the load, commands and usage arrive; the fork session is separate', () => {
    const all = replay(actions).thread;
    expect(all.context).toEqual({ used: 9452, size: 131072 });
    const fork = replayFixture('reload.ndjson', { sessionId: '61eb2cd6-4c9d-422a-b5b4-08a458869cd5' });
    expect(fork.entries).toEqual([]);
    expect(fork.availableCommands.length).toBeGreaterThan(0);
  });
});

describe('profile.ndjson and noauth.ndjson', () => {
  it('profile: one turn, and the title that arrives after the response', () => {
    const t = replayFixture('profile.ndjson');
    expect(t.entries.map((e) => e.kind)).toEqual(['user_message', 'assistant_message']);
    expect(messages(t, 'assistant_message')).toEqual(['Hello from the fake model! You said: hello there']);
    expect(t.title).toBe('Fake title');
  });

  it('noauth: session/new failed, so no session and an empty thread', () => {
    const lines = readFixture('noauth.ndjson');
    expect(firstSessionId(lines)).toBeUndefined();
    expect(fixtureActions(lines)).toEqual([]);
    const t = replayFixture('noauth.ndjson');
    expect(t.entries).toEqual([]);
    expect(t.plan).toBeNull();
    expect(t.context).toEqual({});
  });
});

describe('fixtureActions', () => {
  it('maps prompts, updates and permission answers in wire order', () => {
    const acts = fixtureActions(readFixture('tools.ndjson')).map((a) => a.action);
    const perms = acts.filter((a) => a.type === 'permission');
    expect(perms.map((p) => p.type === 'permission' && [p.toolCall.toolCallId, p.permission.status])).toEqual([
      ['edit-approval-1', 'pending'],
      ['edit-approval-1', 'allowed'],
      ['perm-check-1', 'pending'],
      ['perm-check-1', 'rejected'],
    ]);
    const turns = acts
      .filter((a) => a.type === 'turn.started' || a.type === 'turn.ended')
      .map((a) => `${a.type}:${'turnId' in a ? a.turnId : ''}`);
    expect(turns).toEqual([
      'turn.started:3',
      'turn.ended:3',
      'turn.started:5',
      'turn.ended:5',
      'turn.started:6',
      'turn.ended:6',
      'turn.started:7',
      'turn.ended:7',
      'turn.started:8',
      'turn.ended:8',
    ]);
  });

  it('a cancelled prompt ends the turn as cancelled', () => {
    const ends = fixtureActions(readFixture('main.ndjson'))
      .map((a) => a.action)
      .filter((a) => a.type === 'turn.ended');
    expect(ends.map((a) => a.type === 'turn.ended' && `${a.turnId}:${a.outcome}`)).toEqual([
      '3:completed',
      '4:completed',
      '5:completed',
      '10:cancelled',
      '11:completed',
      '12:completed',
    ]);
  });
});
