/**
 * Issue 14: rewind (go back to an earlier message, edit, resend), branches kept as a tree, and a
 * conversation continued with another agent — each seeded from the stored thread, asserting what
 * the agent received. Hermes is the emulator (real 0.18.2 behaviour); the other agent is the demo.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userMessageBack } from '../../src/harness/branches.js';
import { makeHarness, place, tempDir, texts } from './helpers.js';

type Msg = { method?: string; params?: { sessionId?: string; prompt?: { type: string; text?: string }[] } };
const emuPrompts = (log: string): Msg[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: Msg }).msg)
    .filter((m) => m.method === 'session/prompt');
const textOf = (m: Msg) => (m.params?.prompt ?? []).map((b) => b.text ?? '').join('\n');

function hermesPlace() {
  const p = place();
  const log = join(tempDir('emu'), 'emu.log');
  const ws = tempDir('ws');
  writeFileSync(
    join(p.home, 'config.json'),
    JSON.stringify({ workspaces: { [ws]: { env: { HERMES_EMU_LOG: log } } } }),
  );
  return { p, log, ws };
}

describe('rewind and branches (Hermes emulator)', () => {
  it('rewinds three messages back, continues the branch, then switches back and continues the old one', async () => {
    const { p, log, ws } = hermesPlace();
    const h = makeHarness(p, { hermes: true });
    const w = h.workspaces.open(ws);
    const s = await w.newSession({ provider: 'hermes' });
    for (const m of ['one apple', 'two pears', 'three plums', 'four figs'])
      expect((await s.prompt(m).result).error).toBeUndefined();
    s.flush();

    // Three messages back = "two pears": the branch keeps "one apple" and its answer.
    const at = userMessageBack(h.store.entries.loadSnapshot(s.id), 3, s.id);
    const b = await w.branchSession(s.id, { at });
    expect(b.origin).toBe('branched');
    expect(texts(b)).toEqual(['one apple']);
    expect((await b.prompt('two cherries instead').result).error).toBeUndefined();
    const seeded = emuPrompts(log).at(-1)!;
    expect(seeded.params!.sessionId).toBe(b.agentSessionId);
    expect(textOf(seeded)).toMatch(
      /^\[Talaria\] This conversation continues from an earlier session \(the user went back to an earlier message\)/,
    );
    expect(textOf(seeded)).toContain('User: one apple\nAssistant: Hello from the fake model! You said: one apple');
    expect(textOf(seeded)).not.toMatch(/pears|plums|figs/);
    expect(textOf(seeded).endsWith('</transcript>\n\ntwo cherries instead')).toBe(true);
    expect(texts(b)).toEqual(['one apple', 'two cherries instead']);
    expect(b.thread.entries.filter((e) => e.kind === 'notice').map((e) => (e as { code: string }).code)).toEqual([
      'branched',
      'history_seeded',
    ]);

    // Both kept as a tree.
    expect(h.sessions.branches(b.id)).toMatchObject({
      id: s.id,
      provider: 'hermes',
      children: [{ id: b.id, reason: 'rewind', forkEntryId: at, provider: 'hermes', children: [] }],
    });
    await b.close();
    await s.close();

    // Switch back: the old branch continues in its own agent session, with its whole history.
    const old = await w.openSession(s.id);
    expect(texts(old)).toEqual(['one apple', 'two pears', 'three plums', 'four figs']);
    expect((await old.prompt('five kiwis').result).error).toBeUndefined();
    const last = emuPrompts(log).at(-1)!;
    expect(last.params).toMatchObject({ sessionId: s.agentSessionId, prompt: [{ type: 'text', text: 'five kiwis' }] });
    // The agent's own session still has the original messages (the fake model echoes the newest).
    expect(texts(old, 'assistant_message').at(-1)).toBe('Hello from the fake model! You said: five kiwis');
  });

  it('refuses to rewind to something that is not a user message, or further back than there are messages', async () => {
    const { p, ws } = hermesPlace();
    const h = makeHarness(p, { hermes: true });
    const w = h.workspaces.open(ws);
    const s = await w.newSession({ provider: 'hermes' });
    await s.prompt('only one').result;
    s.flush();
    const answer = s.thread.entries.find((e) => e.kind === 'assistant_message')!;
    await expect(w.branchSession(s.id, { at: answer.id })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(() => userMessageBack(h.store.entries.loadSnapshot(s.id), 2, s.id)).toThrow(
      /has 1 message; cannot go 2 back/,
    );
    expect(h.store.branches.children(s.id)).toEqual([]);
  });
});

describe('continue elsewhere (Hermes emulator → another agent)', () => {
  it('continues a Hermes session with the demo agent, seeded, recorded as a branch with its provenance', async () => {
    const { p, ws } = hermesPlace();
    const h = makeHarness(p, { hermes: true });
    const w = h.workspaces.open(ws);
    const s = await w.newSession({ provider: 'hermes' });
    await s.prompt('remember the colour teal').result;
    s.flush();
    const c = await w.branchSession(s.id, { provider: 'demo' });
    expect(c.provider).toBe('demo');
    // Named for what it is, in the store and in the live thread (not the source's title, not the seed prompt).
    expect(c.stored().title).toMatch(/ \(in .*Demo.*\)$/i);
    expect(c.thread.title).toBe(c.stored().title);
    expect(texts(c)).toEqual(['remember the colour teal']);
    const notice = c.thread.entries.find((e) => e.kind === 'notice' && e.code === 'branched') as {
      text: string;
      data: unknown;
    };
    expect(notice.text).toMatch(/the conversation continued with .*demo.* \(from Hermes/i);
    expect((await c.prompt('which colour?').result).error).toBeUndefined();
    c.flush();
    // What the demo agent received: the Hermes conversation, then the message.
    const sent = h.store.wire
      .read(c.id)
      .filter((r) => r.dir === 'client->agent')
      .map((r) => r.msg as { method?: string; params?: { prompt?: { text?: string }[] } })
      .filter((m) => m.method === 'session/prompt');
    expect(sent).toHaveLength(1);
    const text = sent[0]!.params!.prompt![0]!.text!;
    expect(text).toMatch(/^\[Talaria\] This conversation continues from an earlier session with Hermes/);
    expect(text).toContain(
      'User: remember the colour teal\nAssistant: Hello from the fake model! You said: remember the colour teal',
    );
    expect(text.endsWith('\n\nwhich colour?')).toBe(true);
    expect(h.store.branches.origin(c.id)).toMatchObject({
      parentId: s.id,
      reason: 'continue',
      provider: 'demo',
      fromProvider: 'hermes',
    });
    expect(h.sessions.branches(s.id).children).toEqual([
      expect.objectContaining({ id: c.id, reason: 'continue', provider: 'demo', fromProvider: 'hermes' }),
    ]);
  });
});
