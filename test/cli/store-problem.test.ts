/**
 * A store Talaria cannot use: every command says so in one line with the fix, through real
 * processes on a real (broken) file. No "internal error", no stack trace.
 */
import { describe, it, expect, vi } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../src/cli/exit-codes.js';
import { stillHeld, storeProblemLine } from '../../src/cli/store-problem.js';
import { StoreError } from '../../src/store/index.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

const COMMANDS = [
  ['doctor'],
  ['agents'],
  ['sessions', 'list', '--store-only'],
  ['sessions', 'list', '--all-workspaces'],
  ['sessions', 'show', 'abcd'],
  ['usage'],
  ['run', '--agent', 'demo', 'hi'],
  ['models', '--agent', 'demo'],
  ['chat', '--agent', 'demo'],
];

function expectOneLine(r: { code: number | null; stderr: string; stdout: string }, fix: RegExp): void {
  expect(r.code).toBe(EXIT.NOT_READY);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/Talaria's store cannot be used: /);
  expect(lines[0]).toMatch(fix);
  expect(r.stderr).not.toContain('internal error');
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe.concurrent('a store Talaria cannot use', () => {
  it('a corrupt talaria.db: one line with the fix (move it aside), exit 6, from every command', async () => {
    const home = tempDir('corrupt');
    const env = demoEnv(home);
    mkdirSync(env.TALARIA_HOME!, { recursive: true });
    writeFileSync(
      join(env.TALARIA_HOME!, 'talaria.db'),
      'this is not a database, it is a text file that got in the way\n'.repeat(200),
    );
    const cwd = tempDir('ws');
    const results = await Promise.all(COMMANDS.map((args) => runCli(args, { cwd, env })));
    results.forEach((r, i) => {
      try {
        expectOneLine(r, /move it aside|mv /);
      } catch (e) {
        throw new Error(`talaria ${COMMANDS[i]!.join(' ')}: ${(e as Error).message}\nstderr: ${r.stderr}`);
      }
    });
  });

  it('a home that is a file: one line that says where and what to do', async () => {
    const dir = tempDir('homefile');
    const env = demoEnv(dir, { TALARIA_HOME: join(dir, 'home-is-a-file') });
    writeFileSync(env.TALARIA_HOME!, 'x');
    const cwd = tempDir('ws');
    const [doctor, sessions] = await Promise.all([
      runCli(['doctor'], { cwd, env }),
      runCli(['sessions', 'list', '--store-only'], { cwd, env }),
    ]);
    for (const r of [doctor, sessions]) {
      expectOneLine(r, /TALARIA_HOME/);
      expect(r.stderr).toContain('home-is-a-file');
    }
  });
});

describe('storeProblemLine', () => {
  it('uses the fix for the error code, or the one the error carries, and keeps one line', () => {
    const corrupt = new StoreError(
      'open_failed',
      'cannot open /h/talaria.db as a Talaria store: file is not a database\nmore',
      { path: '/h/talaria.db' },
    );
    expect(storeProblemLine(corrupt)).toBe(
      "Talaria's store cannot be used: cannot open /h/talaria.db as a Talaria store: file is not a database; check that /h/talaria.db is a Talaria store you may read and write, or set TALARIA_HOME to another folder",
    );
    const coded = Object.assign(new StoreError('open_failed', 'x'), {
      code: 'store_read_only',
      details: { path: '/h/talaria.db' },
    });
    expect(storeProblemLine(coded)).toContain('chmod u+w "/h/talaria.db"');
    const own = Object.assign(new StoreError('open_failed', 'damaged'), {
      code: 'store_corrupt',
      details: { path: '/p', fix: 'do the thing' },
    });
    expect(storeProblemLine(own)).toBe("Talaria's store cannot be used: damaged; do the thing");
    const sqlite = Object.assign(new Error('database disk image is malformed'), {
      name: 'SqliteError',
      code: 'SQLITE_CORRUPT',
    });
    expect(storeProblemLine(sqlite, '/h/talaria.db')).toContain('mv "/h/talaria.db" "/h/talaria.db.broken"');
  });
});

describe('frames still waiting for the store when a face is done', () => {
  it('are a recording failure, named with their count and since when; none held is none', () => {
    expect(stillHeld('s1', { heldFrames: 0, delayedSince: undefined })).toBeUndefined();
    const e = stillHeld('s1', { heldFrames: 42, delayedSince: Date.UTC(2026, 0, 2, 3, 4, 5) })!;
    expect(e).toMatchObject({ code: 'recording_failed', details: { sessionId: 's1', heldFrames: 42 } });
    expect(storeProblemLine(e)).toBe(
      "Talaria's store cannot be used: session s1 is not stored completely: 42 frames still wait for the store, unavailable since 2026-01-02T03:04:05.000Z",
    );
  });
});
