/**
 * The emulator against trimmed recordings of REAL Hermes 0.18.2 (test/fixtures/hermes-0.18.2-real,
 * docs/hermes.md): context overflow (the default, as real 0.18.2, and HERMES_EMU_OVERFLOW=lenient that still
 * answers the next prompt), loads in new processes, and load/resume/list/fork.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driveFixture, loadReal, shapes, transcript } from './fixture-driver.js';
import type { HermesClient } from './test-client.js';
import { chunkText, prompt, upd, useEnv } from './test-env.js';

const env = useEnv('hermes-real-');
const REAL = {};
const LENIENT = { HERMES_EMU_OVERFLOW: 'lenient' };
const S5A_SID = 'a1779612-7a72-442c-81f9-df394192ff97';

describe('emulator vs real Hermes 0.18.2: context overflow (the default)', () => {
  it('s5a: a short history cannot be compressed; every later prompt overflows again; /compact is N -> N', async () => {
    const ws = env.makeWs();
    const r = await driveFixture(env.start(env.makeHome(), REAL), loadReal('s5a-overflow-keyword'), { ws });
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    expect(transcript(r.agent, ws)).toEqual(transcript(r.fixture));
  });

  it('s5f: a long history compresses three times ("max compression attempts"), then the merged prompt cannot compress further; /reset recovers', async () => {
    const ws = env.makeWs();
    const r = await driveFixture(env.start(env.makeHome(), REAL), loadReal('s5f-overflow-long-history'), { ws });
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    // The token figure counts the real summariser's text, which the emulator does not reproduce.
    expect(transcript(r.agent, ws, { estimates: true })).toEqual(transcript(r.fixture, undefined, { estimates: true }));
  });

  it('s5d2 + s5d: a load in a new process replays the failed prompts apart, merges them again and overflows again; a learned limit under 64K breaks compression', async () => {
    const home = env.makeHome();
    const ws = env.makeWs();
    const sessions = new Map<string, string>();
    await driveFixture(env.start(home, REAL), loadReal('s5a-overflow-keyword'), { ws, sessions });
    // Between s5a and s5d2 the research runs had taught Hermes a 14,000-token limit (size-based overflows).
    writeFileSync(join(home, 'context_length_cache.yaml'), 'fake-model@http://127.0.0.1:9/v1: 14000\n');
    const stale = await driveFixture(env.start(home, REAL), loadReal('s5d2-overflow-load-stale-cache'), {
      ws,
      sessions,
    });
    expect(shapes(stale.agent)).toEqual(shapes(stale.fixture));
    expect(transcript(stale.agent, ws)).toEqual(transcript(stale.fixture));
    rmSync(join(home, 'context_length_cache.yaml'));
    const again = await driveFixture(env.start(home, REAL), loadReal('s5d-overflow-load-newproc'), { ws, sessions });
    expect(shapes(again.agent)).toEqual(shapes(again.fixture));
    // Rows read back from state.db carry extra fields the estimate counts; the emulator's do not.
    expect(transcript(again.agent, ws, { estimates: true })).toEqual(
      transcript(again.fixture, undefined, { estimates: true }),
    );
  });
});

describe('emulator, HERMES_EMU_OVERFLOW=lenient: the merged prompt after an overflow is answered', () => {
  it('matches s5a up to the overflow, then answers the merged text; a new process does the same after a load', async () => {
    const home = env.makeHome();
    const ws = env.makeWs();
    const lines = loadReal('s5a-overflow-keyword');
    const cut = lines.findIndex((l) => l.msg.id === 5 && l.dir === 'client->agent');
    const c = env.start(home, LENIENT);
    const sessions = new Map<string, string>();
    const r = await driveFixture(c, lines.slice(0, cut), { ws, sessions });
    expect(transcript(r.agent, ws)).toEqual(transcript(r.fixture));
    const id = sessions.get(S5A_SID)!;
    const next = await prompt(c, id, 'hello after overflow');
    expect(chunkText(next.frames)).toBe('Hello from the fake model! You said: OVERFLOW now\n\nhello after overflow');
    expect(next.res.result.usage.totalTokens).toBe(2468);
    await c.close();
    const b = env.start(home, LENIENT);
    await b.call('initialize', { protocolVersion: 1 });
    const mark = b.mark();
    await b.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    // On disk the failed prompt and the one merged into it are separate rows.
    expect(
      b
        .updates(mark)
        .filter((u) => u.sessionUpdate === 'user_message_chunk')
        .map((u) => u.content.text),
    ).toEqual(['hello there', 'OVERFLOW now', 'hello after overflow']);
    expect(chunkText((await prompt(b, id, 'OVERFLOW again')).frames)).toMatch(/^Context length exceeded/);
    expect(chunkText((await prompt(b, id, 'hi')).frames)).toBe(
      'Hello from the fake model! You said: OVERFLOW again\n\nhi',
    );
  });
});

/** The session s7 loads: what the replay in s7-sessions-p2 shows was said in it. */
async function buildS2Session(c: HermesClient, ws: string): Promise<string> {
  await c.call('initialize', { protocolVersion: 1 });
  const { sessionId } = await c.call('session/new', { cwd: ws, mcpServers: [] });
  const answers = ['allow_once', 'deny'];
  c.answer('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: answers.shift() ?? 'deny' },
  }));
  for (const t of [
    'hello there',
    'hello again',
    'TOOLS: read notes, echo, write out.txt',
    `[[write: ${ws}/denied.txt | nope]]`,
    'THINK about it',
    'TODO: make a plan',
    '/context',
    'hello after slash',
  ]) {
    await prompt(c, sessionId, t);
  }
  return sessionId as string;
}

describe('emulator vs real Hermes 0.18.2: sessions', () => {
  it('s7: load/resume replay (provider ids, N| read lines, denied write), mode not persisted, unknown ids, fork (no usage_update, fresh usage), list without nextCursor, misc methods', async () => {
    const home = env.makeHome();
    const ws = env.makeWs({ 'notes.txt': 'These are the notes. Line two.\n' });
    const a = env.start(home);
    const s2 = await buildS2Session(a, ws);
    await a.close();
    const sessions = new Map([['a53c3a47-7646-4600-912b-6ac7a51ee011', s2]]);
    const p1 = await driveFixture(env.start(home), loadReal('s7-sessions-p1'), { ws, sessions });
    expect(shapes(p1.agent)).toEqual(shapes(p1.fixture));
    expect(transcript(p1.agent, ws)).toEqual(transcript(p1.fixture));
    const p2 = await driveFixture(env.start(home), loadReal('s7-sessions-p2'), { ws, sessions });
    expect(shapes(p2.agent)).toEqual(shapes(p2.fixture));
    expect(transcript(p2.agent, ws)).toEqual(transcript(p2.fixture));
    // The fork is listed first, titled by its first user message (no auto-title).
    const listed = p2.agent.find((m) => m.id === 19)!.result;
    expect(listed.sessions[0]).toMatchObject({ title: 'hello there' });
    expect('nextCursor' in listed).toBe(false);
    // After the fork's response: its commands update and no usage_update (then its first prompt).
    const fork = p2.agent.findIndex((m) => m.id === 16 && !m.method);
    const forkId = p2.agent[fork]!.result.sessionId as string;
    const ofFork = p2.agent
      .slice(fork + 1)
      .filter((m) => m.params?.sessionId === forkId)
      .map((m) => upd(m)?.sessionUpdate);
    expect(ofFork.slice(0, ofFork.indexOf('agent_message_chunk'))).toEqual(['available_commands_update']);
  });
});
