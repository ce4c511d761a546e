import { describe, expect, it, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { demoEnv, runCli, tempDir } from './helpers.js';
import { seedRealCliRows, seedTelegramSession } from '../fakes/hermes/channel-rows.js';
import { SEED_MARK } from '../../src/thread/seed.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 180_000) });

/**
 * `talaria hermes sessions`: Hermes sessions from other channels (the rows real `hermes chat -q`
 * wrote, a telegram conversation), listed and shown read-only, and continued as a new Talaria
 * session whose first prompt carries the transcript — Hermes' own rows never change.
 */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
const [TWO_TURNS, TOOLS] = ['20261206_102436_e68017', '20261206_102453_d6981e'];

function place() {
  const cwd = tempDir('hs');
  const hermesHome = tempDir('hs-hermes');
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  seedRealCliRows(hermesHome);
  const env: Record<string, string> = {
    ...demoEnv(tempDir('hs-home')),
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: tempDir('hs-user'),
    HERMES_HOME: hermesHome,
  };
  return { cwd, env, hermesHome };
}

/** Hermes' rows of the cli sessions, every column, for a before/after comparison. */
function dumpRows(home: string): string {
  const db = new Database(join(home, 'state.db'), { readonly: true });
  try {
    const ids = [TWO_TURNS, TOOLS];
    return JSON.stringify([
      db.prepare('SELECT * FROM sessions WHERE id IN (?, ?) ORDER BY id').all(...ids),
      db.prepare('SELECT * FROM messages WHERE session_id IN (?, ?) ORDER BY id').all(...ids),
      db.prepare('SELECT * FROM session_model_usage WHERE session_id IN (?, ?) ORDER BY session_id').all(...ids),
    ]);
  } finally {
    db.close();
  }
}

describe.concurrent('talaria hermes sessions', () => {
  it('list (text, --json, --source, --profile) and show (text, --json); unknown ids are usage errors', async () => {
    const p = place();
    seedTelegramSession(p.hermesHome, { continued: true, at: 1_796_600_000 });
    const t = await runCli(['hermes', 'sessions'], p);
    expect(t.code, t.stderr).toBe(0);
    const lines = t.stdout.trim().split('\n');
    expect(lines[0]).toBe('default');
    expect(lines[1]).toMatch(
      /^ {2}20261205_181500_3fa85f64 {2}telegram .* {2}7 msgs \(\+1 continued\) {2}3,500 in · 50 out · no price {2}Grocery list #2$/,
    );
    expect(lines[2]).toMatch(
      new RegExp(`^  ${TWO_TURNS}  cli .* 4 msgs  8,065 in · 39 out · no price  The secret codeword is PELICAN-42`),
    );
    expect(lines[3]).toMatch(new RegExp(`^  ${TOOLS}  cli .* 8 msgs  16,676 in · 66 out · no price  TOOLS please`));

    const j = await runCli(['hermes', 'sessions', 'list', '--source', 'cli', '--json'], p);
    const json = JSON.parse(j.stdout) as {
      profiles: Array<{ profile: string; kind: string; sessions: Array<{ id: string }> }>;
    };
    expect(json.profiles.map((x) => [x.profile, x.kind, x.sessions.map((s) => s.id)])).toEqual([
      ['default', 'ok', [TWO_TURNS, TOOLS]],
    ]);

    const none = await runCli(['hermes', 'sessions', 'list', '--profile', 'work'], p);
    expect(none.stdout).toBe('work: no Hermes sessions from other channels\n');

    const s = await runCli(['hermes', 'sessions', 'show', TOOLS], p);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(`Hermes session ${TOOLS} (cli, profile default) · fake-model · /tmp/hh-chan-work`);
    expect(s.stdout).toMatch(
      /\] assistant → terminal \{"command": "echo hi"\}\n.*\] tool terminal: \{"output": "hi", "exit_code": 0, "error": null\}\n/,
    );
    expect(s.stdout.trim().split('\n').at(-1)).toMatch(/\] assistant: All three tools ran\. Done\.$/);
    const sj = JSON.parse((await runCli(['hermes', 'sessions', 'show', TWO_TURNS, '--json'], p)).stdout) as {
      messages: Array<{ role: string; text: string }>;
    };
    expect(sj.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    const bad = await runCli(['hermes', 'sessions', 'show', 'nope'], p);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no Hermes session nope from another channel/);
  });

  it('an unknown state.db version: said per profile, no sessions, exit 0 for list and 4 for show', async () => {
    const p = place();
    const db = new Database(join(p.hermesHome, 'state.db'));
    db.prepare('UPDATE schema_version SET version = 23').run();
    db.close();
    const t = await runCli(['hermes', 'sessions'], p);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(
      /^default: unknown shape of Hermes state\.db \(schema_version 23\): its version is not 21/,
    );
    const s = await runCli(['hermes', 'sessions', 'show', TOOLS], p);
    expect(s.code).not.toBe(0);
    expect(s.stderr).toMatch(/unknown shape of Hermes state\.db \(schema_version 23\)/);
  });

  it("continue: a new Talaria session on Hermes whose first prompt carries the transcript; Hermes' cli rows stay byte for byte", async () => {
    const p = place();
    const before = dumpRows(p.hermesHome);
    const c = await runCli(['hermes', 'sessions', 'continue', TWO_TURNS, '--agent', 'hermes', '--workspace', p.cwd], p);
    expect(c.code, c.stderr).toBe(0);
    const id = c.stdout.trim();
    expect(c.stderr).toContain(`Continued Hermes cli session ${TWO_TURNS} with hermes`);
    // Recorded as a continue with no Talaria parent: Hermes' id is the previous agent session.
    const tdb = new Database(join(p.env.TALARIA_HOME!, 'talaria.db'), { readonly: true });
    const branch = tdb.prepare('SELECT * FROM session_branches WHERE session_id = ?').all(id);
    tdb.close();
    expect(branch).toMatchObject([
      {
        reason: 'continue',
        parent_id: null,
        previous_agent_session_id: TWO_TURNS,
        provider: 'hermes',
        from_provider: 'hermes',
      },
    ]);
    const tree = await runCli(['sessions', 'branches', id], p);
    expect(tree.stdout).toMatch(
      new RegExp(`^\\* ${id}  hermes  continued from hermes  The secret codeword is PELICAN-42`),
    );
    const r = await runCli(['run', '--json', '--session', id, 'What was the codeword?'], p);
    expect(r.code, r.stderr).toBe(0);
    // What the agent got: the emulator keeps each session's history (its own JSON store).
    const store = readFileSync(join(p.hermesHome, 'emulator-sessions.json'), 'utf8');
    const firstPrompt = (
      JSON.parse(store) as { sessions: Record<string, { history: Array<{ role: string; content: unknown }> }> }
    ).sessions;
    const texts = Object.values(firstPrompt).flatMap((s) =>
      s.history.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content)),
    );
    const seeded = texts.find((t) => t.includes(SEED_MARK));
    expect(seeded).toBeDefined();
    expect(seeded).toContain('with Hermes (cli)');
    expect(seeded).toContain('User: The secret codeword is PELICAN-42. Please remember it.');
    expect(seeded).toContain('User: What animal was in the codeword?');
    expect(seeded).toContain('What was the codeword?');
    expect(dumpRows(p.hermesHome)).toBe(before);
  });

  it('continue with another agent, and the failures: unknown id, unknown agent, no messages', async () => {
    const p = place();
    const c = await runCli(
      ['hermes', 'sessions', 'continue', TOOLS, '--agent', 'demo', '--workspace', p.cwd, '--json'],
      p,
    );
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ v: 1, from: TOOLS, source: 'cli', provider: 'demo' });
    const shown = await runCli(['sessions', 'show', (JSON.parse(c.stdout) as { id: string }).id], p);
    expect(shown.stdout).toContain('TOOLS please, in this folder');
    expect((await runCli(['hermes', 'sessions', 'continue', 'nope', '--agent', 'demo'], p)).code).toBe(2);
    expect((await runCli(['hermes', 'sessions', 'continue', TOOLS, '--agent', 'nosuch'], p)).stderr).toMatch(
      /unknown agent nosuch/,
    );
    const db = new Database(join(p.hermesHome, 'state.db'));
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('empty1', 'discord', 1)").run();
    db.close();
    const e = await runCli(['hermes', 'sessions', 'continue', 'empty1', '--agent', 'demo', '--workspace', p.cwd], p);
    expect(e.code).not.toBe(0);
    expect(e.stderr).toMatch(/has no messages to continue from/);
  });
});
