import { describe, it, expect, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 180_000) });

/**
 * Issue 38 item 3, the trap: with `compression: {in_place: false}` Hermes 0.18.2 continues a
 * compressed conversation in a new state.db row, and a new process loading the ORIGINAL id gets
 * the ended root back (pre-compression history, new turns appended to the ended row). Talaria
 * keeps the rotation's provenance in the thread meta and reopens the continuation instead —
 * checked here on the emulator, which rotates as a built 0.18.2 does (test/fakes/hermes/rotation.test.ts).
 */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));

interface Row {
  id: string;
  parent_session_id: string | null;
  end_reason: string | null;
  message_count: number;
  input_tokens: number;
}
interface EmuRecord {
  id: string;
  history: Array<{ role: string; content: string }>;
}

function rotatingPlace() {
  const cwd = tempDir('lineage');
  const hermesHome = tempDir('lineage-hermes');
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\ncompression:\n  enabled: true\n  in_place: false\n',
  );
  const env = {
    ...demoEnv(tempDir('lineage-home')),
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: tempDir('lineage-user'),
    HERMES_HOME: hermesHome,
  };
  const rows = (): Row[] => {
    const db = new Database(join(hermesHome, 'state.db'), { readonly: true });
    try {
      return db
        .prepare(
          'SELECT id, parent_session_id, end_reason, message_count, input_tokens FROM sessions ORDER BY started_at',
        )
        .all() as Row[];
    } finally {
      db.close();
    }
  };
  // The emulator's transcripts (its stand-in for Hermes' messages table).
  const transcripts = (): Record<string, EmuRecord> =>
    (
      JSON.parse(readFileSync(join(hermesHome, 'emulator-sessions.json'), 'utf8')) as {
        sessions: Record<string, EmuRecord>;
      }
    ).sessions;
  return { cwd, env, rows, transcripts };
}

const said = (r: EmuRecord | undefined) => (r?.history ?? []).filter((m) => m.role === 'user').map((m) => m.content);

describe('Hermes lineage across compression (talaria run, one process per turn)', () => {
  it('after a rotation the next process continues the continuation row, not the ended root', async () => {
    const p = rotatingPlace();
    const first = await runCli(['run', '--json', '--agent', 'hermes', 'hello one'], p);
    expect(first.code, first.stderr).toBe(0);
    const { sessionId, agentSessionId: root } = JSON.parse(first.stdout) as {
      sessionId: string;
      agentSessionId: string;
    };

    const rotated = await runCli(['run', '--json', '--session', sessionId, 'COMPRESSME now'], p);
    expect(rotated.code, rotated.stderr).toBe(0);
    const [ended, cont] = p.rows();
    expect(ended).toMatchObject({ id: root, end_reason: 'compression' });
    expect(cont).toMatchObject({ parent_session_id: root, end_reason: null });
    const contId = cont!.id;
    expect(contId).toMatch(/^\d{8}_\d{6}_[0-9a-f]{6}$/);
    const rootBefore = ended!;

    const next = await runCli(['run', '--json', '--session', sessionId, 'after rotation'], p);
    expect(next.code, next.stderr).toBe(0);
    const rows = p.rows();
    // The new turn went to the continuation row; the ended root did not move.
    expect(rows.find((r) => r.id === root)).toEqual(rootBefore);
    expect(rows.find((r) => r.id === contId)!.message_count).toBeGreaterThan(cont!.message_count);
    expect(rows.find((r) => r.id === contId)!.input_tokens).toBeGreaterThan(cont!.input_tokens);
    const t = p.transcripts();
    expect(said(t[root])).not.toContain('after rotation');
    // The continuation's history: the compaction summary, the rest of the rotated turn, then the new turn.
    expect(t[contId]!.history[0]!.content).toMatch(/^\[PRIOR CONTEXT — /);
    expect(said(t[contId])).toEqual(['COMPRESSME now', 'after rotation']);

    // Talaria still knows the conversation by its root (usage sums the lineage from it).
    const shown = JSON.parse((await runCli(['sessions', 'show', sessionId, '--json'], p)).stdout) as {
      agentSessionId?: string;
      session?: { agentSessionId?: string };
      usage: { hermes?: { lineage?: { continuations: number } } };
      hermes?: { provenance: Record<string, unknown> };
    };
    expect(shown.session?.agentSessionId ?? shown.agentSessionId).toBe(root);
    expect(shown.usage.hermes?.lineage?.continuations).toBe(1); // the continuation's tokens are counted in
    expect(shown.hermes?.provenance).toMatchObject({
      currentHermesSessionId: contId,
      rootHermesSessionId: root,
      parentHermesSessionId: root,
      sessionKind: 'continuation',
      compressionDepth: 1,
    });
    const text = await runCli(['sessions', 'show', sessionId], p);
    expect(text.stdout).toContain(`\nHermes: compressed ×1 · root ${root} · parent ${root} · now ${contId}\n`);
    expect(text.stdout).toMatch(
      /\n---\nUsage: .*\(from Hermes' state\.db; incl\. 1 compression continuation\)\nHermes: compressed ×1/,
    );

    // Hermes lists the continuation as a session of its own: Talaria shows it as this conversation, once.
    const listed = JSON.parse((await runCli(['sessions', 'list', '--json', '--agent', 'hermes'], p)).stdout) as {
      sessions: Array<{ id: string; stored: boolean; atAgent?: boolean }>;
    };
    expect(listed.sessions).toEqual([expect.objectContaining({ id: sessionId, stored: true, atAgent: true })]);

    // And the process after that still finds the head (the provenance survived the reload).
    const again = await runCli(['run', '--json', '--session', sessionId, 'once more'], p);
    expect(again.code, again.stderr).toBe(0);
    expect(said(p.transcripts()[contId])).toEqual(['COMPRESSME now', 'after rotation', 'once more']);
    expect(said(p.transcripts()[root])).not.toContain('once more');
  });
});
