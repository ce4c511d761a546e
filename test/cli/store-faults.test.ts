/**
 * A store that opens but cannot do its job — read-only, or damaged under the wire log — through
 * real processes: every face says so in the store-problem line with the real path and exits 6;
 * `talaria doctor` finds it too. Never "internal error", never a turn reported done that is not on disk.
 */
import { describe, it, expect, vi } from 'vitest';
import { chmodSync } from 'node:fs';
import { EXIT } from '../../src/cli/exit-codes.js';
import { openStore } from '../../src/store/index.js';
import { corruptTable } from '../store/helpers.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** A demo machine whose Talaria store already exists (with one session), and its file. */
function machine() {
  const dir = tempDir('faults');
  const env: Record<string, string> = { ...demoEnv(dir), HOME: dir };
  const store = openStore({ home: env.TALARIA_HOME! });
  store.sessions.create({ provider: 'demo', cwd: dir, title: 'kept' });
  const file = store.path;
  store.close();
  return { dir, env, file, cwd: tempDir('ws') };
}

describe.concurrent('a store that opens but cannot be used', () => {
  it('a read-only talaria.db: run, serve, chat and doctor print the store-problem line with its real path, exit 6', async () => {
    const m = machine();
    // Root ignores file modes: the CLI runs without the capabilities that override them.
    const user = { modesApply: true };
    chmodSync(m.file, 0o444);
    const commands = [
      ['run', '--agent', 'demo', 'hi'],
      ['serve', '--port', '0'],
      ['chat', '--agent', 'demo'],
      ['doctor'],
    ];
    const results = await Promise.all(commands.map((args) => runCli(args, { cwd: m.cwd, env: m.env, ...user })));
    results.forEach((r, i) => {
      const what = `talaria ${commands[i]!.join(' ')}\nstderr: ${r.stderr}`;
      expect(r.code, what).toBe(EXIT.NOT_READY);
      expect(r.stderr, what).toMatch(/Talaria's store cannot be used: The Talaria store .* is read-only/);
      expect(r.stderr, what).toContain(`chmod u+w ${JSON.stringify(m.file)}`);
      expect(r.stderr, what).not.toContain('internal error');
      expect(r.stderr, what).not.toContain(`"Talaria's store"`);
    });
    const json = await runCli(['run', '--json', '--agent', 'demo', 'hi'], { cwd: m.cwd, env: m.env, ...user });
    expect(json.code).toBe(EXIT.NOT_READY);
    expect(JSON.parse(json.stdout)).toMatchObject({
      exitCode: EXIT.NOT_READY,
      error: { code: 'store_read_only', message: expect.stringContaining(m.file) },
    });
  });

  it('damaged under the wire log: run prints the answer, logs the loss once and exits 6 with the store-problem line; so does chat; doctor fails its integrity check', async () => {
    const m = machine();
    corruptTable(m.file, 'wire_blocks');
    const o = { cwd: m.cwd, env: m.env };
    const [run, doctor, chat] = await Promise.all([
      runCli(['run', '--agent', 'demo', 'hi'], o),
      // The integrity check runs in a child with a deadline (10 s by default): a loaded machine gets more.
      runCli(['doctor', '--timeout', '60'], o),
      runCli(['chat', '--agent', 'demo'], { ...o, input: 'hi\n' }),
    ]);
    expect(run.stdout).toContain('You said: "hi"');
    expect(run.code, run.stderr).toBe(EXIT.NOT_READY);
    expect(run.stderr.match(/recorder batch lost/g)).toHaveLength(1);
    const fix = `mv ${JSON.stringify(m.file)} ${JSON.stringify(m.file + '.broken')}`;
    expect(run.stderr).toMatch(
      /talaria run: Talaria's store cannot be used: The Talaria store .* is damaged or not a database \(database disk image is malformed\)/,
    );
    expect(run.stderr).toContain(fix);
    expect(doctor.code, doctor.stderr).toBe(EXIT.NOT_READY);
    // The integrity check lists what it found, or SQLite stops it with "malformed" (a damaged root page).
    expect(doctor.stderr).toMatch(
      /talaria doctor: Talaria's store cannot be used: The Talaria store .* is damaged or not a database \((integrity check: |database disk image is malformed)/,
    );
    expect(doctor.stderr).toContain(fix);
    expect(doctor.stdout).toMatch(/\nStore\n {2}✗ The Talaria store /);
    // A chat's turns the store lost: the conversation went on, the exit says it is not on disk.
    expect(chat.code, chat.stderr).toBe(EXIT.NOT_READY);
    expect(chat.stderr).toContain(
      `talaria chat: Talaria's store cannot be used: The Talaria store ${m.file} is damaged`,
    );
  });

  it('doctor on a sound store: writable, integrity checked, exit 0', async () => {
    const m = machine();
    const r = await runCli(['doctor', '--json', '--timeout', '60'], { cwd: m.cwd, env: m.env });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(JSON.parse(r.stdout)).toMatchObject({ store: m.file, storeCheck: { ok: true, checked: true } });
  });
});
