/**
 * Continuing a Hermes session from another channel (the real cli rows of 0.18.2 in the emulator's
 * state.db) on the library face: the same road as any continue (Workspace.branchSession with a
 * ForeignTranscript) — the thread shown, the seed sent with the first message, owed across
 * processes until then; a rewind needs a stored session.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { continueHermesChannelSession, hermesChannelSessions } from '../../src/harness/hermes-channels.js';
import { SEED_MARK } from '../../src/thread/seed.js';
import { seedRealCliRows } from '../fakes/hermes/channel-rows.js';
import { makeHarness, place, tempDir, texts } from './helpers.js';

const TWO_TURNS = '20261206_102436_e68017';

describe('Hermes sessions from other channels, continued (library)', () => {
  it('seeds a new Hermes session; the seed is still owed by a later process; a rewind of a foreign transcript is refused', async () => {
    const p = place();
    seedRealCliRows(p.hermesHome);
    const log = join(tempDir('emu'), 'emu.log');
    const ws = tempDir('ws');
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ workspaces: { [ws]: { env: { HERMES_EMU_LOG: log } } } }),
    );
    const h = makeHarness(p, { hermes: true });
    expect(hermesChannelSessions(h.env).map((x) => [x.profile, x.read.kind])).toEqual([['default', 'ok']]);
    const { session, from } = await continueHermesChannelSession(h, { id: TWO_TURNS, workspace: ws });
    expect(from.source).toBe('cli');
    expect(session.origin).toBe('branched');
    expect(session.provider).toBe('hermes');
    expect(texts(session)).toEqual([
      'The secret codeword is PELICAN-42. Please remember it.',
      'What animal was in the codeword?',
    ]);
    expect(session.thread.title).toBe('The secret codeword is PELICAN-42. Please remember it. (in Hermes Agent)');
    const id = session.id;
    await session.close();
    await expect(
      h.workspaces
        .open(ws)
        .branchSession({ ref: 'x', fromProvider: 'hermes', fromLabel: 'Hermes (cli)', entries: [] }, { at: 'e1' }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await h.close();

    // A later process: the stored branch still owes the agent its copy, sent with the first message.
    const h2 = makeHarness(p, { hermes: true });
    const again = await h2.workspaces.open(ws).openSession(id);
    expect((await again.prompt('What was the codeword?').result).error).toBeUndefined();
    const prompts = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { msg: { method?: string; params?: { prompt?: Array<{ text?: string }> } } }).msg)
      .filter((m) => m.method === 'session/prompt');
    const sent = (prompts.at(-1)!.params!.prompt ?? []).map((b) => b.text ?? '').join('\n');
    expect(sent).toContain(`${SEED_MARK} from an earlier session with Hermes (cli)`);
    expect(sent).toContain('User: The secret codeword is PELICAN-42. Please remember it.');
    expect(sent.trimEnd().endsWith('What was the codeword?')).toBe(true);
    await h2.close();
  });
});
