/**
 * The writer thread itself: how its worker is found in built JavaScript, and what happens when it
 * cannot open the database or dies with batches in flight (the recorder's side of the thread is
 * in test/harness/recorder-thread.test.ts).
 */
import { describe, it, expect, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import type { Logger } from '../../src/protocol/types.js';
import { acquireWriterThread } from '../../src/store/writer-thread.js';
import { emptyEntryColumns, type WriterBatch } from '../../src/store/writer-batch.js';
import { openStore } from '../../src/store/index.js';
import { tempHome } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const batch: WriterBatch = {
  key: 's',
  frames: { t: [1], dir: ['agent->client'], line: ['{}'] },
  entries: emptyEntryColumns(),
  rest: '',
};

function logger(): Logger & { warns: string[] } {
  const warns: string[] = [];
  const none = () => {};
  return {
    warns,
    debug: none,
    info: none,
    warn: (m: string) => void warns.push(m),
    error: none,
  } as unknown as Logger & { warns: string[] };
}

/** The source files `entries` import, transitively (relative imports only). */
function sourcesOf(entries: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g))
      todo.push(join(dirname(f), m[1]! + '.ts'));
  }
  return [...seen];
}

describe('writer thread', () => {
  it('built JavaScript finds writer-worker.js beside writer-thread.js, records on it and exits', async () => {
    // dist/ as the build makes it (module for module, .js beside .js), without running a full build here.
    const out = tempHome('writer-dist');
    const src = join(ROOT, 'src');
    for (const f of sourcesOf(
      ['store/index.ts', 'harness/recorder.ts', 'store/writer-worker.ts'].map((f) => join(src, f)),
    )) {
      const js = ts.transpileModule(readFileSync(f, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const to = join(out, 'dist', relative(src, f)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, js);
    }
    writeFileSync(join(out, 'package.json'), '{"type":"module"}');
    symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
    const script = `
      import { openStore } from './dist/store/index.js';
      import { createRecorder } from './dist/harness/recorder.js';
      const store = openStore({ home: ${JSON.stringify(join(out, 'home'))} });
      store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
      const rec = createRecorder(store, { sessionKey: 's', thread: true, onError: (e) => console.error(e.message) });
      const t0 = Date.now();
      while (!rec.threaded && Date.now() - t0 < 20000) await new Promise((r) => setTimeout(r, 5));
      for (let i = 1; i <= 10; i++) rec.onFrame({ t_ms: i, dir: 'agent->client', msg: {}, raw: '{"i":' + i + '}' });
      rec.flush();
      console.log(rec.threaded, store.wire.count('s'));
    `;
    writeFileSync(join(out, 'check.mjs'), script);
    const r = await promisify(execFile)(process.execPath, [join(out, 'check.mjs')], { cwd: out, timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true 10\n');
  }, 60_000);

  it('a database the thread cannot open leaves it not ready, with a warning; batches are answered with the error', async () => {
    const log = logger();
    const w = acquireWriterThread({
      path: join(tempHome('writer-missing'), 'no', 'such', 'dir', 'talaria.db'),
      logger: log,
    });
    await vi.waitFor(
      () =>
        expect(log.warns).toEqual([
          'store: the writer thread could not open the database; recording on the main thread',
        ]),
      { timeout: 15_000 },
    );
    expect(w.ready).toBe(false);
    const done = vi.fn();
    w.post(batch, done);
    expect(done).toHaveBeenCalledWith(expect.any(Error), 0);
    w.release();
  });

  it('a process that ends while its thread is starting waits for the start, then exits (it aborted inside SQLite)', async () => {
    const path = join(tempHome('writer-start-exit'), 'talaria.db');
    const child = fileURLToPath(new URL('./writer-start-child.ts', import.meta.url));
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), child, path],
      {
        timeout: 20_000,
      },
    );
    expect(stderr).toBe('');
    // Without the wait the process ended during the stand-in's 300 ms, and the worker with it.
    expect(existsSync(path + '.started')).toBe(true);
    expect(existsSync(path)).toBe(true); // the real worker then opened (created) the database
  }, 30_000);

  it('letting go of the thread returns once its connection is closed: the file is free to move', async () => {
    const home = tempHome('writer-close');
    openStore({ home }).close();
    const path = join(home, 'talaria.db');
    const w = acquireWriterThread({ path, entry: new URL('./writer-slow-close-worker.ts', import.meta.url) });
    await vi.waitFor(() => expect(w.ready).toBe(true), { timeout: 15_000 });
    w.wait(w.post(batch, () => {}));
    expect(existsSync(path + '-wal')).toBe(true);
    w.release();
    // Its connection was the file's only one: closing it removes the WAL (it takes 300 ms to close).
    expect(existsSync(path + '-wal')).toBe(false);
  });

  it('letting go of a thread that crashed before its exit was heard returns at once, its connection closed', async () => {
    const home = tempHome('writer-crash');
    openStore({ home }).close();
    const path = join(home, 'talaria.db');
    const w = acquireWriterThread({ path, entry: new URL('./writer-crash-worker.ts', import.meta.url) });
    // Synchronously from here, so that this thread cannot hear of the crash before it lets go.
    const nap = new Int32Array(new SharedArrayBuffer(4));
    const deadline = Date.now() + 15_000;
    while (!existsSync(path + '.crashing') && Date.now() < deadline) Atomics.wait(nap, 0, 0, 10);
    expect(existsSync(path + '.crashing')).toBe(true);
    const t0 = Date.now();
    w.release();
    // Without the thread's own word on exit, this waited out WRITER_CLOSE_WAIT_MS (10 s).
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(existsSync(path + '-wal')).toBe(false);
  });

  it('a thread that dies with batches in flight answers them with an error and is not ready any more', async () => {
    const log = logger();
    const w = acquireWriterThread({
      path: join(tempHome('writer-dies'), 'talaria.db'),
      logger: log,
      entry: new URL('./writer-dying-worker.ts', import.meta.url),
    });
    await vi.waitFor(() => expect(w.ready).toBe(true), { timeout: 15_000 });
    const errors: Error[] = [];
    w.post(batch, (err) => errors.push(err!));
    w.post(batch, (err) => errors.push(err!));
    await vi.waitFor(
      () =>
        expect(errors.map((e) => e.message)).toEqual(['the writer thread exited (3)', 'the writer thread exited (3)']),
      { timeout: 15_000 },
    );
    expect(w.ready).toBe(false);
    expect(log.warns).toEqual(['store: the writer thread exited']);
    w.release();
  });
});
