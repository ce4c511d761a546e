/**
 * Compression rotation (issue 38 item 3), checked against the real 0.18.2 recordings
 * 12-compression-rotate / 13-load-resume-rotated: with `compression: {in_place: false}` a
 * compression ends the state.db row and continues in a new one while the ACP id stays; a new
 * process loading the ORIGINAL id gets the ended root, loading the continuation id gets the head.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadReal, shape } from './fixture-driver.js';
import { openSession, type HermesClient, type Msg } from './test-client.js';
import { CONFIG, chunkText, prompt, upd, useEnv } from './test-env.js';

const { makeHome, makeWs, start } = useEnv('hermes-rotate-');
const ROTATE = `${CONFIG}compression:\n  enabled: true\n  in_place: false\n`;
const CONT_ID = /^\d{8}_\d{6}_[0-9a-f]{6}$/;

interface Row {
  id: string;
  parent_session_id: string | null;
  end_reason: string | null;
  ended_at: number | null;
  input_tokens: number;
  message_count: number;
}
function rows(home: string): Row[] {
  const db = new Database(join(home, 'state.db'), { readonly: true });
  try {
    return db
      .prepare(
        'SELECT id, parent_session_id, end_reason, ended_at, input_tokens, message_count FROM sessions ORDER BY started_at',
      )
      .all() as Row[];
  } finally {
    db.close();
  }
}
const provOf = (u: Msg | null | undefined): Msg | undefined => u?._meta?.hermes?.sessionProvenance;
// A title update may carry the continuation's provenance too; the rotation one names its reason.
const rotationIn = (frames: Msg[]) =>
  frames.map(upd).find((u) => u?.sessionUpdate === 'session_info_update' && provOf(u)?.reason === 'compression');

/** The generated title arrives on its own after an exchange. */
const titled = (c: HermesClient) =>
  c.waitFor(
    (m) => upd(m)?.sessionUpdate === 'session_info_update' && typeof upd(m)?.title === 'string',
    'title update',
  );

/** The real rotation update and the real load of the continuation id. */
function recorded(): { rotation: Msg; loadCont: Msg } {
  const rotation = loadReal('12-compression-rotate')
    .map((l) => upd(l.msg))
    .find((u) => u?.sessionUpdate === 'session_info_update' && provOf(u)?.sessionKind === 'continuation');
  const lines = loadReal('13-load-resume-rotated');
  const req = lines.find((l) => l.msg.method === 'session/load' && CONT_ID.test(String(l.msg.params.sessionId)))!;
  const loadCont = lines.find((l) => l.dir === 'agent->client' && l.msg.id === req.msg.id && l.msg.result)!.msg.result;
  return { rotation: rotation!, loadCont };
}

describe('Hermes emulator: compression rotation (compression.in_place false)', () => {
  it('COMPRESSME ends the row, continues in a YYYYMMDD_HHMMSS_xxxxxx row and says so once, before the response', async () => {
    const home = makeHome(ROTATE);
    const ws = makeWs();
    const c = start(home, { HERMES_EMU_TITLE: 'Fake Session Title' });
    const { id, result } = await openSession(c, ws);
    expect(provOf(result)).toMatchObject({ sessionKind: 'root', compressionDepth: 0 });
    for (const t of ['hello one', 'hello two', 'hello three']) await prompt(c, id, t);
    await titled(c);
    const { res, frames } = await prompt(c, id, 'COMPRESSME now');
    expect(res.result.stopReason).toBe('end_turn');
    expect(frames.filter((m) => m.method).every((m) => m.params.sessionId === id)).toBe(true); // the wire id stays
    const u = rotationIn(frames)!;
    const p = provOf(u)!;
    expect(p.currentHermesSessionId).toMatch(CONT_ID);
    expect(p).toEqual({
      acpSessionId: id,
      currentHermesSessionId: p.currentHermesSessionId,
      rootHermesSessionId: id,
      parentHermesSessionId: id,
      sessionKind: 'continuation',
      compressionDepth: 1,
      previousHermesSessionId: id,
      reason: 'compression',
      creatorKind: 'compression',
    });
    expect(u.title).toBe('Fake Session Title');
    // Recorded order: text, the rotation update, usage_update, the response.
    const kinds = frames.map((m) => upd(m)?.sessionUpdate ?? 'response');
    expect(kinds.slice(-3)).toEqual(['session_info_update', 'usage_update', 'response']);
    const cont = p.currentHermesSessionId as string;
    const [root, next] = rows(home);
    expect(root).toMatchObject({ id, end_reason: 'compression', parent_session_id: null });
    expect(root!.ended_at).toBeGreaterThan(0);
    expect(next).toMatchObject({ id: cont, end_reason: null, parent_session_id: id });
    // The model call before the split is the root's, the one after it the continuation's.
    expect(next!.input_tokens).toBe(1200);
    await prompt(c, id, 'after compression');
    expect(rows(home).find((r) => r.id === cont)!.input_tokens).toBe(2400);
    expect(rows(home).find((r) => r.id === id)!.input_tokens).toBe(root!.input_tokens);
    const listed = (await c.call('session/list', {})).sessions.map((s: Msg) => s.sessionId);
    expect(listed.sort()).toEqual([id, cont].sort());
    c.kill();

    // A new process: the original id is the ended root (the trap), the continuation id the head.
    const d = start(home);
    await d.call('initialize', { protocolVersion: 1 });
    let mark = d.mark();
    const loadRoot = await d.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    expect(loadRoot.sessionId).toBeUndefined();
    expect(provOf(loadRoot)).toEqual({
      acpSessionId: id,
      currentHermesSessionId: id,
      rootHermesSessionId: id,
      parentHermesSessionId: null,
      sessionKind: 'root',
      compressionDepth: 0,
    });
    const rootReplay = d.since(mark);
    expect(chunkText(rootReplay, 'user_message_chunk')).toContain('COMPRESSME now');
    expect(chunkText(rootReplay, 'user_message_chunk')).not.toContain('after compression');
    expect(chunkText(rootReplay)).not.toContain('Compressed and continued.');
    const before = rows(home).find((r) => r.id === id)!.message_count;
    await prompt(d, id, 'hello after reload');
    expect(rows(home).find((r) => r.id === id)!.message_count).toBe(before + 2); // appended to the ENDED row
    mark = d.mark();
    const loadCont = await d.call('session/load', { sessionId: cont, cwd: ws, mcpServers: [] });
    expect(provOf(loadCont)).toEqual({
      acpSessionId: cont,
      currentHermesSessionId: cont,
      rootHermesSessionId: id,
      parentHermesSessionId: id,
      sessionKind: 'continuation',
      compressionDepth: 1,
    });
    const contReplay = d.since(mark);
    expect(chunkText(contReplay)).toMatch(/^\[PRIOR CONTEXT — /);
    expect(chunkText(contReplay)).toContain('Compressed and continued.');
    expect(chunkText(contReplay, 'user_message_chunk')).toContain('after compression');
    expect(chunkText(contReplay, 'user_message_chunk')).not.toContain('hello after reload');
  });

  it('has the shape of the real rotation: provenance keys, sessionKind, depth and the id format', async () => {
    const real = recorded();
    const c = start(makeHome(ROTATE));
    const { id } = await openSession(c, makeWs());
    await prompt(c, id, 'hello one');
    await titled(c); // as in the recording, the session has its title before the compression
    const u = rotationIn((await prompt(c, id, 'COMPRESSME now')).frames)!;
    expect(shape(provOf(u))).toBe(shape(provOf(real.rotation)));
    expect(provOf(real.rotation)!.currentHermesSessionId).toMatch(CONT_ID);
    expect(provOf(u)!.currentHermesSessionId).toMatch(CONT_ID);
    expect(Object.keys(u).sort()).toEqual(Object.keys(real.rotation).sort());
    const cont = provOf(u)!.currentHermesSessionId as string;
    const load = await c.call('session/load', { sessionId: cont, cwd: makeWs(), mcpServers: [] });
    expect(Object.keys(load).sort()).toEqual(Object.keys(real.loadCont).sort());
    expect(shape(provOf(load))).toBe(shape(provOf(real.loadCont)));
  });

  it('by default (in_place) COMPRESSME compresses under the same id: one row, no rotation update', async () => {
    const home = makeHome();
    const c = start(home);
    const { id } = await openSession(c, makeWs());
    for (const t of ['hello one', 'hello two']) await prompt(c, id, t);
    const { frames } = await prompt(c, id, 'COMPRESSME now');
    expect(
      frames.map(upd).some((u) => u?.sessionUpdate === 'session_info_update' && provOf(u)?.sessionKind !== 'root'),
    ).toBe(false);
    expect(chunkText(frames)).toContain('Compressed and continued.');
    expect(rows(home)).toEqual([expect.objectContaining({ id, end_reason: null, parent_session_id: null })]);
  });
});
