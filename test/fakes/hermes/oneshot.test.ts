/**
 * The emulator's one-shot CLI (`hermes chat -Q -q`, oneshot.ts) against the rows real Hermes 0.18.2
 * wrote for the same commands (fixtures/hermes-0.18.2-real/cli-sessions.json): the same columns
 * set and left NULL, the same id format and model_config, what it prints where.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REAL_CLI } from './channel-rows.js';

const BIN = fileURLToPath(new URL('./bin/hermes', import.meta.url));
const VOLATILE = new Set([
  'id',
  'started_at',
  'cwd',
  'system_prompt',
  'model',
  'input_tokens',
  'output_tokens',
  'billing_base_url',
]);

describe('emulator: hermes chat -Q -q (source cli rows, as real 0.18.2)', () => {
  it('writes a cli row and its messages shaped like the real ones; --resume appends to it', () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-oneshot-'));
    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
    );
    const env = { ...process.env, HERMES_HOME: home };
    const first = spawnSync(BIN, ['chat', '-Q', '-q', 'The secret codeword is PELICAN-42. Please remember it.'], {
      env,
      encoding: 'utf8',
    });
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(
      'Hello from the fake model! You said: The secret codeword is PELICAN-42. Please remember it.\n',
    );
    const id = /\nsession_id: (\S+)\n$/.exec(first.stderr)![1]!;
    expect(id).toMatch(/^\d{8}_\d{6}_[0-9a-f]{6}$/);
    const again = execFileSync(BIN, ['chat', '-Q', '--resume', id, '-q', 'What animal was in the codeword?'], {
      env,
      encoding: 'utf8',
    });
    expect(again).toBe(
      `↻ Resumed session ${id} (1 user message, 2 total messages)\nHello from the fake model! You said: What animal was in the codeword?\n`,
    );

    const db = new Database(join(home, 'state.db'), { readonly: true });
    const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>;
    const msgs = db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id').all(id) as Array<
      Record<string, unknown>
    >;
    db.close();
    const real = REAL_CLI.sessions.find((s) => s.id === '20261206_102436_e68017')!;
    for (const [k, v] of Object.entries(real)) if (!VOLATILE.has(k)) expect([k, row[k]]).toEqual([k, v]);
    expect(row.cwd).toBe(process.cwd());
    expect([row.input_tokens, row.output_tokens]).toEqual([2400, 68]);
    const realMsgs = REAL_CLI.messages.filter((m) => m.session_id === real.id);
    expect(msgs.map((m) => [m.role, m.finish_reason, m.active, m.compacted, m.tool_calls])).toEqual(
      realMsgs.map((m) => [m.role, m.finish_reason, m.active, m.compacted, m.tool_calls]),
    );
    expect(msgs.map((m) => m.content)).toEqual(realMsgs.map((m) => m.content));
  });
});
