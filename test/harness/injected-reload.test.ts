/**
 * Issue 36 item 16: what Talaria itself sent the agent (a steer's wrapper, a seed) never shows as
 * the user's words after a reload. Against the Hermes emulator, whose session/load replays its
 * history (where the resent message carries Talaria's wrapper): the reopened thread is the stored
 * one, the user's own words and the `steered` note, as it was before the reload.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeHarness, place, tempDir, texts, waitFor } from './helpers.js';

const notes = (s: { thread: { entries: readonly { kind: string }[] } }) =>
  s.thread.entries.filter((e) => e.kind === 'notice').map((e) => (e as unknown as { code: string }).code);

describe('reopening a session in which Talaria spoke to the agent', () => {
  it('a steered (cancelled and resent) message reloads as the user wrote it, with its note', async () => {
    const p = place();
    const wsPath = tempDir('ws');
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ workspaces: { [wsPath]: { env: { HERMES_EMU_SLOW_MS: '40' } } } }),
    );
    const h = makeHarness(p, { hermes: true });
    const s = await h.workspaces.open(wsPath).newSession({ provider: 'hermes' });
    const streaming = waitFor(s, (e) => e.type === 'entry.added' && e.entry.kind === 'assistant_message');
    const first = s.prompt('SLOW tell me about ponds');
    await streaming;
    const r = await s.session.steer('make it about lakes');
    expect(r.how).toBe('resent');
    await first.result;
    expect((await r.turn!.result).stopReason).toBe('end_turn');
    const before = { users: texts(s), notes: notes(s) };
    expect(before.users).toEqual(['SLOW tell me about ponds', 'make it about lakes']);
    expect(before.notes).toContain('steered');
    await h.close();

    const h2 = makeHarness(p, { hermes: true });
    const again = await h2.workspaces.open(wsPath).openSession(s.id);
    expect(again.origin).toBe('loaded');
    expect(again.historyFrom).toBe('store');
    expect(texts(again)).toEqual(before.users);
    expect(notes(again)).toEqual(before.notes);
    expect(JSON.stringify(again.thread.entries)).not.toContain('[Talaria] The user interrupted');
    // The conversation goes on at the agent's session.
    expect((await again.prompt('and then?').result).error).toBeUndefined();
  });
});
