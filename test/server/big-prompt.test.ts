/**
 * Issue 35 item 10: one 30 MB prompt grew the store by ~330 MB (11×): the turn row kept a full
 * copy and was rewritten at the turn's end (a fourth, freed), the event log kept two more, and the
 * WAL file stayed as large as it had grown. Now a prompt over maxPromptBytes (8 MiB by default,
 * config.json) is refused before anything is sent or stored, and one under it costs at most 2×
 * its wire bytes on disk.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { keptPrompt, PROMPT_BLOCK_KEPT } from '../../src/store/turns.js';
import { EventLog, MAX_LOGGED_EVENT_BYTES } from '../../src/server/event-log.js';
import { openStore } from '../../src/store/index.js';
import { makeHarness, place, tempDir } from '../harness/helpers.js';
import { raw, serve } from './helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

vi.setConfig({ testTimeout: 120_000 });

const dbBytes = (home: string) =>
  readdirSync(home)
    .filter((f) => f.startsWith('talaria.db'))
    .reduce((n, f) => n + statSync(join(home, f)).size, 0);

describe('a big prompt', () => {
  it('over the limit: refused with the size, the limit and the fix, over HTTP too; nothing is stored or sent', async () => {
    const s = await serve();
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    const r = await raw(s.server, `/api/sessions/${id}/prompt`, {
      method: 'POST',
      body: JSON.stringify({ text: 'x'.repeat(9 * 1024 * 1024) }),
    });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/the prompt is 9\.0 MiB; prompts over 8\.0 MiB are refused/),
    });
    expect(String(r.json.fix)).toMatch(/maxPromptBytes/);
    expect(s.harness.store.turns.list(id)).toEqual([]);
    // Behind a running turn (the server's queue) it is refused at once, not when its turn would start.
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const queued = await raw(s.server, `/api/sessions/${id}/prompt`, {
      method: 'POST',
      body: JSON.stringify({ text: 'y'.repeat(9 * 1024 * 1024) }),
    });
    expect([queued.status, queued.json.code]).toEqual([400, 'invalid_argument']);
    expect((await s.client.api.queue({ params: { id } })).queue).toEqual([]);
  });

  it('config.json maxPromptBytes sets the limit for every session of the harness', async () => {
    const p = place();
    writeFileSync(join(p.home, 'config.json'), JSON.stringify({ maxPromptBytes: 1024 * 1024 }));
    const h = makeHarness(p);
    const hs = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    expect(() => hs.prompt('z'.repeat(1024 * 1024 + 1))).toThrow(/prompts over 1\.0 MiB are refused/);
    expect((await hs.prompt('z'.repeat(1000)).result).stopReason).toBe('end_turn');
  });

  it('under the limit: the store grows by at most 2× the wire bytes (server: thread, wire log, event log, turn row)', async () => {
    const s = await serve();
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    rawDb(s.harness.store).pragma('wal_checkpoint(TRUNCATE)');
    const home = s.harness.home;
    const before = dbBytes(home);
    const text = 'w'.repeat(7 * 1024 * 1024);
    await s.client.api.prompt({ params: { id }, body: { text } });
    await vi.waitFor(() => expect(s.harness.store.turns.list(id).at(-1)?.stopReason).toBe('end_turn'), {
      timeout: 60_000,
    });
    let wire = 0;
    for (const f of s.harness.store.wire.iterate(id)) wire += f.msg.length;
    await s.server.close();
    const growth = dbBytes(home) - before;
    expect(wire).toBeGreaterThan(text.length);
    expect(growth / wire).toBeLessThanOrEqual(2);
    // The turn row keeps the head of the prompt, marked as cut (the thread has all of it).
    const store = openStore({ home, readOnly: true });
    const prompt = store.turns.list(id).at(-1)!.prompt as { text: string; _meta: unknown }[];
    expect(prompt[0]!.text.length).toBe(PROMPT_BLOCK_KEPT);
    expect(prompt[0]!._meta).toEqual({ talaria: { cut: { text: text.length } } });
    store.close();
  });
});

describe('the parts', () => {
  it('keptPrompt cuts text and data past the kept size and says so; small blocks are the same objects', () => {
    const small = { type: 'text', text: 'hi' };
    const big = { type: 'image', mimeType: 'image/png', data: 'a'.repeat(PROMPT_BLOCK_KEPT + 1), _meta: { x: 1 } };
    const [a, b] = keptPrompt([small, big]) as Record<string, unknown>[];
    expect(a).toBe(small);
    expect(b).toEqual({
      type: 'image',
      mimeType: 'image/png',
      data: '',
      _meta: { x: 1, talaria: { cut: { data: PROMPT_BLOCK_KEPT + 1 } } },
    });
  });

  it("a big prompt's own events are not kept in the log (a resume across them gets a snapshot); a big tool output is", () => {
    const store = openStore({ home: tempDir('evlog') });
    const sid = store.sessions.create({ provider: 'demo', cwd: '/' }).id;
    const log = new EventLog(store);
    const text = 'b'.repeat(MAX_LOGGED_EVENT_BYTES);
    const started = log.append(sid, 'turn.started', { turnId: 't1', prompt: [{ type: 'text', text }] });
    const big = log.append(sid, 'entry.added', { index: 0, entry: { kind: 'user_message', text } });
    const tool = log.append(sid, 'entry.added', { index: 1, entry: { kind: 'tool_call', content: text } });
    log.append(sid, 'turn.ended', { turnId: 't1' });
    expect(log.after(sid, started.seq - 1)).toBeUndefined();
    expect(log.after(sid, big.seq - 1)).toBeUndefined();
    expect(log.after(sid, big.seq)?.map((e) => e.type)).toEqual(['entry.added', 'turn.ended']);
    expect(log.after(sid, tool.seq - 1)?.[0]).toMatchObject({ entry: { kind: 'tool_call', content: text } });
    store.close();
  });
});
