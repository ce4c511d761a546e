/**
 * Issue 17, "Context overflow (Hermes)": against the emulator as real Hermes 0.18.2 behaves
 * (every later prompt overflows again; a reload replays the poison; only a fresh session
 * recovers), the next message continues in the SAME Talaria session on a fresh agent session
 * seeded from the stored thread, with a notice; the store records it as a branch.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeHarness, place, tempDir, texts } from './helpers.js';

type Msg = { method?: string; params?: { sessionId?: string; prompt?: { type: string; text?: string }[] } };
const emuPrompts = (log: string): Msg[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: Msg }).msg)
    .filter((m) => m.method === 'session/prompt');

describe('overflow recovery (Hermes emulator, real 0.18.2 behaviour)', () => {
  it('continues the same Talaria session on a seeded fresh agent session, records the branch, and reopens from the stored thread', async () => {
    const p = place();
    const log = join(tempDir('emu'), 'emu.log');
    const wsPath = tempDir('ws');
    // The emulator's switches reach it as the workspace's env (config.json), as a user's would.
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ workspaces: { [wsPath]: { env: { HERMES_EMU_LOG: log } } } }),
    );
    const h = makeHarness(p, { hermes: true });
    const ws = h.workspaces.open(wsPath);
    const s = await ws.newSession({ provider: 'hermes' });
    const first = s.agentSessionId;
    await s.prompt('remember the word teapot').result;
    const o = await s.prompt('OVERFLOW now').result;
    expect(o.error?.code).toBe('context_overflow');
    const r = await s.prompt('which word?').result;
    expect(r.error).toBeUndefined();

    // Same Talaria session, a new agent session, recorded.
    expect(s.agentSessionId).not.toBe(first);
    s.flush();
    const row = h.sessions.find(s.id)!;
    expect(row.agentSessionId).toBe(s.agentSessionId);
    expect(h.store.branches.of(s.id)).toEqual([
      expect.objectContaining({
        sessionId: s.id,
        parentId: s.id,
        reason: 'overflow',
        agentSessionId: s.agentSessionId,
        previousAgentSessionId: first,
        provider: 'hermes',
      }),
    ]);
    const stored = h.store.entries.loadSnapshot(s.id)!;
    expect(stored.entries.filter((e) => e.kind === 'notice').map((e) => (e as { code: string }).code)).toEqual([
      'context_overflow',
      'overflow_recovery',
      'context_reseeded',
    ]);

    // What the fake model received in the fresh session: the earlier exchange, not the poison.
    const prompts = emuPrompts(log);
    const seeded = prompts.at(-1)!;
    expect(seeded.params!.sessionId).toBe(s.agentSessionId);
    const text = seeded.params!.prompt![0]!.text!;
    expect(text).toContain(
      'User: remember the word teapot\nAssistant: Hello from the fake model! You said: remember the word teapot',
    );
    expect(text).not.toContain('OVERFLOW');
    expect(text.endsWith('\n\nwhich word?')).toBe(true);

    // Reopened by another harness: the agent loads the new session; the thread shown is the stored one (all of it).
    await h.close();
    const h2 = makeHarness(p, { hermes: true });
    const again = await h2.workspaces.open(ws.path).openSession(s.id);
    expect(again.agentSessionId).toBe(s.agentSessionId);
    expect(again.historyFrom).toBe('store');
    expect(texts(again)).toEqual(['remember the word teapot', 'OVERFLOW now', 'which word?']);
    expect((await again.prompt('and then?').result).error).toBeUndefined();
    expect(emuPrompts(log).at(-1)!.params).toMatchObject({
      sessionId: s.agentSessionId,
      prompt: [{ type: 'text', text: 'and then?' }],
    });
  });
});

describe('overflow recovery across processes', () => {
  it('a session that overflowed in an earlier process (talaria run --session) recovers on its next message in a new one', async () => {
    const p = place();
    const log = join(tempDir('emu'), 'emu.log');
    const wsPath = tempDir('ws');
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ workspaces: { [wsPath]: { env: { HERMES_EMU_LOG: log } } } }),
    );
    const h = makeHarness(p, { hermes: true });
    const s = await h.workspaces.open(wsPath).newSession({ provider: 'hermes' });
    const first = s.agentSessionId;
    await s.prompt('remember the word teapot').result;
    expect((await s.prompt('OVERFLOW now').result).error?.code).toBe('context_overflow');
    await h.close();

    const h2 = makeHarness(p, { hermes: true });
    const again = await h2.workspaces.open(wsPath).openSession(s.id);
    expect(again.origin).toBe('loaded');
    expect(again.historyFrom).toBe('store');
    const r = await again.prompt('which word?').result;
    expect(r.error).toBeUndefined();
    expect(again.agentSessionId).not.toBe(first);
    const text = emuPrompts(log).at(-1)!.params!.prompt![0]!.text!;
    expect(text).toContain('User: remember the word teapot');
    expect(text).not.toContain('OVERFLOW');
    expect(text.endsWith('\n\nwhich word?')).toBe(true);
    again.flush();
    expect(h2.store.branches.of(s.id)).toEqual([
      expect.objectContaining({
        reason: 'overflow',
        previousAgentSessionId: first,
        agentSessionId: again.agentSessionId,
      }),
    ]);
  });
});
