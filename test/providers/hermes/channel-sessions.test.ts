/**
 * Hermes sessions from other channels, read from state.db: the rows real Hermes 0.18.2 wrote for
 * `hermes chat -q` (fixture), a telegram conversation by the real schema, the emulator's own ACP
 * rows beside them (never listed), and every way the read can fail: no file (never created), an
 * unknown schema version or columns (no data, said so), a locked database.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { listChannelSessions, readChannelSession } from '../../../src/providers/hermes/channel-sessions.js';
import { channelEntries, decodeContent, parseToolCalls } from '../../../src/providers/hermes/channel-transcript.js';
import { PRIOR, REAL_CLI, seedRealCliRows, seedTelegramSession } from '../../fakes/hermes/channel-rows.js';
import { openStateDb } from '../../fakes/hermes/state-db.js';
import { openSession } from '../../fakes/hermes/test-client.js';
import { prompt, useEnv } from '../../fakes/hermes/test-env.js';

const { makeHome, makeWs, start } = useEnv('hermes-channels-');
const [TWO_TURNS, TOOLS] = ['20261206_102436_e68017', '20261206_102453_d6981e'];

describe('Hermes sessions from other channels (state.db, schema 21)', () => {
  it("lists the real cli rows newest first with Hermes' counts and usage; ACP and subagent rows are not listed", async () => {
    const home = makeHome();
    const c = start(home);
    const { id: acpId } = await openSession(c, makeWs());
    expect((await prompt(c, acpId, 'hello')).res.result.stopReason).toBe('end_turn');
    c.kill();
    await c.exited;
    seedRealCliRows(home);
    const db = openStateDb(home);
    db.prepare(
      "INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES ('sub1', 'subagent', ?, 1)",
    ).run(acpId);
    db.close();

    const r = listChannelSessions(home);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.sessions.map((s) => s.id)).toEqual([TWO_TURNS, TOOLS]); // the two-turn one was active last
    const [two, tools] = r.sessions;
    expect(two).toMatchObject({
      source: 'cli',
      title: null,
      preview: 'The secret codeword is PELICAN-42. Please remember it.',
      model: 'fake-model',
      cwd: '/tmp/hh-chan-work',
      messageCount: 4,
      toolCallCount: 0,
      continuations: [],
      usage: { inputTokens: 8065, outputTokens: 39, apiCalls: 2, cost: { status: 'unknown' } },
    });
    expect(tools).toMatchObject({ messageCount: 8, toolCallCount: 3, usage: { inputTokens: 16676, outputTokens: 66 } });
    expect(two!.lastActive).toBe(Math.round((REAL_CLI.messages.at(-1)!.timestamp as number) * 1000));
    expect(listChannelSessions(home, { source: 'telegram' })).toMatchObject({ kind: 'ok', sessions: [] });
  });

  it('one session: only active rows in insertion order, tool calls paired with their results', () => {
    const home = makeHome();
    seedRealCliRows(home);
    const r = readChannelSession(home, TOOLS);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(r.messages[1]!.toolCalls).toEqual([
      { id: 'call_b417507b16694c65bcaf', name: 'read_file', arguments: '{"path": "/work/hermes-real/work/notes.txt"}' },
    ]);
    const entries = channelEntries(r.messages);
    expect(entries.map((e) => e.kind)).toEqual([
      'user_message',
      'tool_call',
      'tool_call',
      'tool_call',
      'assistant_message',
    ]);
    expect(entries[2]).toMatchObject({
      title: 'terminal: echo hi',
      toolKind: 'execute',
      status: 'completed',
      rawOutput: '{"output": "hi", "exit_code": 0, "error": null}',
    });
    expect(readChannelSession(home, 'nope')).toMatchObject({ kind: 'not-found' });
  });

  it('a telegram conversation continued after compression: one list entry, the chain in order, compacted rows hidden, image parts named', () => {
    const home = makeHome();
    const { id, continuation } = seedTelegramSession(home, { continued: true });
    const l = listChannelSessions(home);
    expect(
      l.kind === 'ok' && l.sessions.map((s) => [s.id, s.source, s.title, s.messageCount, s.continuations]),
    ).toEqual([[id, 'telegram', 'Grocery list #2', 7, [continuation]]]);
    expect(l.kind === 'ok' && l.sessions[0]!.usage).toMatchObject({
      inputTokens: 3500,
      outputTokens: 50,
      lineage: { continuations: 1 },
    });
    const r = readChannelSession(home, id);
    if (r.kind !== 'ok') throw new Error(r.message);
    expect(r.messages.map((m) => m.text)).toEqual([
      'Add eggs and milk to the grocery list',
      'Added eggs and milk.',
      'And this, from the photo',
      'Bread, from the photo.',
      `${PRIOR}[CONTEXT COMPACTION — REFERENCE ONLY] a grocery list`,
      'What is on the list now?',
      'Eggs, milk and bread.',
    ]);
    expect(r.messages[2]!.note).toBe('not shown: 1 image_url part');
    expect(r.messages.map((m) => m.sessionId)).toEqual([id, id, id, id, continuation, continuation, continuation]);
  });

  it('an unknown schema version or missing columns: "unknown shape", no data; no file: an empty list and no file made', () => {
    const home = makeHome();
    expect(listChannelSessions(home)).toMatchObject({ kind: 'ok', sessions: [] });
    expect(readChannelSession(home, TOOLS).kind).toBe('not-found');
    expect(existsSync(join(home, 'state.db'))).toBe(false);

    seedRealCliRows(home);
    const db = new Database(join(home, 'state.db'));
    db.prepare('UPDATE schema_version SET version = 22').run();
    db.close();
    const r = listChannelSessions(home);
    expect(r).toMatchObject({ kind: 'unknown-shape' });
    expect(r.kind === 'unknown-shape' && r.message).toMatch(
      /^unknown shape of Hermes state\.db \(schema_version 22\): its version is not 21; Talaria reads schema 21 \(Hermes 0\.18\.2\), so no session is read from it$/,
    );
    expect(readChannelSession(home, TOOLS)).toMatchObject({ kind: 'unknown-shape' });

    const home2 = makeHome();
    seedRealCliRows(home2);
    const db2 = new Database(join(home2, 'state.db'));
    db2.exec('ALTER TABLE messages DROP COLUMN tool_calls');
    db2.close();
    const r2 = readChannelSession(home2, TOOLS);
    expect(r2.kind === 'unknown-shape' && r2.message).toMatch(/its messages table has no tool_calls/);
  });

  it('never changes the file (bytes and mtime); a locked database answers "busy"', () => {
    const home = makeHome();
    seedRealCliRows(home);
    seedTelegramSession(home, { continued: true });
    const file = join(home, 'state.db');
    const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
    expect(listChannelSessions(home).kind).toBe('ok');
    expect(readChannelSession(home, TOOLS).kind).toBe('ok');
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
    const locker = new Database(file);
    locker.pragma('locking_mode = EXCLUSIVE');
    locker.exec('BEGIN EXCLUSIVE');
    try {
      expect(listChannelSessions(home).kind).toBe('busy');
      expect(readChannelSession(home, TOOLS).kind).toBe('busy');
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it('content and tool calls of a shape Talaria does not know are said, not guessed', () => {
    expect(decodeContent('\u0000json:{"a":1}')).toEqual({ text: '', note: 'content of an unknown shape' });
    expect(decodeContent('\u0000json:not json')).toEqual({ text: '', note: 'content of an unknown shape' });
    expect(decodeContent(Buffer.from('x'))).toEqual({ text: '', note: 'content of an unknown shape' });
    expect(parseToolCalls('{"not": "a list"}')).toBeUndefined();
    expect(parseToolCalls('[{"id": "x"}]')).toBeUndefined();
    const e = channelEntries([
      {
        sessionId: 's',
        id: 1,
        role: 'assistant',
        text: '',
        timestamp: 0,
        toolCalls: [{ id: 'c1', name: 'terminal', arguments: '{"command":"ls"}' }],
      },
      { sessionId: 's', id: 2, role: 'system', text: 'be brief', timestamp: 0, note: 'content of an unknown shape' },
    ]);
    expect(e).toMatchObject([
      { kind: 'tool_call', status: 'cancelled', title: 'terminal: ls' },
      { kind: 'notice', code: 'hermes_message', text: 'system: be brief' },
      { kind: 'notice', level: 'warning', code: 'hermes_content_unknown' },
    ]);
  });
});
