import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rpcError, spawnDemo, tempDir, type DemoPeer } from './harness.js';

const text = (t: string): acp.ContentBlock[] => [{ type: 'text', text: t }];
const live = new Set<DemoPeer>();
async function spawn(env: Record<string, string>): Promise<DemoPeer> {
  const p = await spawnDemo(env);
  live.add(p);
  return p;
}
afterEach(async () => {
  for (const p of live) {
    expect(p.violations.splice(0)).toEqual([]);
    if (p.child.exitCode === null) expect((await p.end()).code).toBe(0);
  }
  live.clear();
});

describe('demo agent: sessions persist across processes', () => {
  let home: string;
  let cwd: string;
  beforeAll(() => {
    home = tempDir('persist-home');
    cwd = tempDir('persist-ws');
    writeFileSync(join(cwd, 'x.txt'), 'x\n');
  });

  it('session/load in a fresh process replays the history before answering, then continues', async () => {
    const a = await spawn({ TALARIA_DEMO_HOME: home });
    const { sessionId } = await a.newSession(cwd);
    const expected: acp.SessionUpdate[] = [];
    for (const t of ['hello', 'plan', 'read x.txt']) {
      const from = a.updates.length;
      await a.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: text(t) });
      expected.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: t } });
      expected.push(...a.of(sessionId, from).filter((u) => u.sessionUpdate !== 'usage_update'));
    }
    const lastUsed = a
      .of(sessionId)
      .filter((u) => u.sessionUpdate === 'usage_update')
      .at(-1);
    expect(expected.some((u) => u.sessionUpdate === 'session_info_update')).toBe(true);
    expect(expected.some((u) => u.sessionUpdate === 'tool_call')).toBe(true);
    await a.end();

    const b = await spawn({ TALARIA_DEMO_HOME: home });
    const r = await b.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    expect(r.configOptions?.map((o) => o.id)).toEqual(['model', 'mode']);
    // Everything replayed arrived before the response.
    const respAt = b.frames.findIndex((f) => f.dir === 'agent->client' && 'result' in f.msg && f.msg.id === 1);
    const replayed = b.frames
      .slice(0, respAt)
      .filter((f) => f.msg.method === 'session/update')
      .map((f) => (f.msg.params as acp.SessionNotification).update);
    expect(replayed).toEqual(expected);
    // Then commands and usage, as after session/new.
    await b.waitFor(() => b.of(sessionId).some((u) => u.sessionUpdate === 'usage_update'));
    expect(
      b
        .of(sessionId)
        .slice(expected.length)
        .map((u) => u.sessionUpdate),
    ).toEqual(['available_commands_update', 'usage_update']);
    expect(b.of(sessionId).at(-1)).toEqual(lastUsed);

    // The loaded session takes prompts; ids continue instead of repeating.
    const from = b.updates.length;
    const p = await b.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: text('still there?') });
    expect(p.stopReason).toBe('end_turn');
    const oldIds = new Set(expected.flatMap((u) => ('messageId' in u ? [u.messageId] : [])));
    for (const u of b.of(sessionId, from)) if ('messageId' in u) expect(oldIds.has(u.messageId)).toBe(false);
  });

  it('session/close answers {} and ends the session in this process; it stays loadable; unknown ids are -32002', async () => {
    const a = await spawn({ TALARIA_DEMO_HOME: home });
    for (const id of ['00000000-0000-0000-0000-000000000000', '../../etc/passwd']) {
      const e = await rpcError(a.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd, mcpServers: [] }));
      expect(e.code).toBe(-32002);
    }
    const { sessionId } = await a.newSession(cwd);
    expect(await a.agent.request(acp.methods.agent.session.close, { sessionId })).toEqual({});
    const e = await rpcError(a.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: text('hi') }));
    expect(e.code).toBe(-32002);
    await a.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    expect(
      (await a.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: text('hi') })).stopReason,
    ).toBe('end_turn');
  });
});

describe('demo agent: session/list', () => {
  it('filters by cwd and pages with a cursor', async () => {
    const home = tempDir('list-home');
    const [cwdA, cwdB] = [tempDir('list-a'), tempDir('list-b')];
    const a = await spawn({ TALARIA_DEMO_HOME: home, TALARIA_DEMO_PAGE_SIZE: '2' });
    const inA: string[] = [];
    for (let i = 0; i < 3; i++) inA.push((await a.newSession(cwdA)).sessionId);
    const inB = (await a.newSession(cwdB)).sessionId;
    await a.agent.request(acp.methods.agent.session.prompt, { sessionId: inA[0]!, prompt: text('name me') });
    await a.end();

    const b = await spawn({ TALARIA_DEMO_HOME: home, TALARIA_DEMO_PAGE_SIZE: '2' });
    const list = (p: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> =>
      b.agent.request(acp.methods.agent.session.list, p);
    const p1 = await list({ cwd: cwdA });
    expect(p1.sessions).toHaveLength(2);
    expect(p1.nextCursor).toBeTruthy();
    const p2 = await list({ cwd: cwdA, cursor: p1.nextCursor! });
    expect(p2.sessions).toHaveLength(1);
    expect(p2.nextCursor ?? null).toBeNull();
    const ids = [...p1.sessions, ...p2.sessions].map((s) => s.sessionId);
    expect(new Set(ids)).toEqual(new Set(inA));
    // Most recently updated first: the prompted session leads.
    expect(ids[0]).toBe(inA[0]);
    expect(p1.sessions[0]).toMatchObject({ cwd: cwdA, title: 'Demo: name me' });
    for (const s of [...p1.sessions, ...p2.sessions]) expect(Date.parse(s.updatedAt ?? '')).not.toBeNaN();

    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(cursor ? { cursor } : {});
      all.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(all)).toEqual(new Set([...inA, inB]));
    expect(all).toHaveLength(4);

    expect((await list({ cwd: tempDir('list-empty') })).sessions).toEqual([]);
    expect((await rpcError(list({ cursor: 'not-a-cursor' }))).code).toBe(-32602);
  });
});

describe('demo agent: default home', () => {
  it('without TALARIA_DEMO_HOME, sessions go under <tmpdir>/talaria-demo/<uid>', async () => {
    const tmp = tempDir('tmpdir');
    const env: Record<string, string> = { TMPDIR: tmp, TALARIA_DEMO_HOME: '' };
    const a = await spawn(env);
    const { sessionId } = await a.newSession(tmp);
    const file = join(tmp, 'talaria-demo', String(process.getuid?.()), 'sessions', `${sessionId}.json`);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ sessionId, cwd: tmp, history: [] });
  });
});
