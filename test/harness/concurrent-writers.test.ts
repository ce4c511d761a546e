/**
 * Two Talaria processes writing one session at once (two `talaria run --session X`, a script and
 * a chat): nothing may be lost silently. Real processes, a real SQLite file.
 */
import { describe, it, expect, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { cleanPath, makeHarness, place, texts, type Place } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

vi.setConfig({ testTimeout: 90_000 });

const CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));

interface Child {
  proc: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves with the first stdout line matching `re` (seen already or to come). */
  line(re: RegExp): Promise<string>;
  exited: Promise<number | null>;
}

function child(options: Record<string, unknown>): Child {
  const proc = spawn(process.execPath, [...nodeArgs(CHILD), JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.filter((x) => x.re.test(l))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(l);
    }
  });
  const exited = new Promise<number | null>((r) => proc.on('close', (code) => r(code)));
  return {
    proc,
    lines,
    stderr: () => err,
    exited,
    line: (re) => {
      const seen = lines.find((l) => re.test(l));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}

function harnessEnv(p: Place): Record<string, string> {
  return {
    PATH: cleanPath(),
    HOME: p.userHome,
    TALARIA_HOME: p.home,
    TALARIA_DEMO_HOME: p.demoHome,
    TALARIA_DEMO_CHUNK_DELAY_MS: '0',
  };
}

/** A stored demo session with one turn, closed again (its lease free). */
async function storedSession(p: Place): Promise<string> {
  const h = makeHarness(p);
  const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
  expect((await s.prompt('first').result).stopReason).toBe('end_turn');
  await h.close();
  return s.id;
}

describe('two processes writing one session', () => {
  it('recorders in two processes: every frame of both is stored, sequence numbers unique and contiguous', async () => {
    const p = place();
    const store = openStore({ home: p.home });
    store.sessions.create({ id: 'x', provider: 'p', cwd: '/' });
    store.close();
    const n = 3000;
    const [a, b] = [
      child({ mode: 'recorder', home: p.home, sessionKey: 'x', tag: 'A', frames: n }),
      child({ mode: 'recorder', home: p.home, sessionKey: 'x', tag: 'B', frames: n }),
    ];
    const codes = await Promise.all([a.exited, b.exited]);
    expect([a.stderr(), b.stderr()]).toEqual(['', '']);
    expect(codes).toEqual([0, 0]);
    const check = openStore({ home: p.home });
    try {
      const rows = check.wire.rows('x');
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 2 * n }, (_, i) => i + 1));
      const text = (r: { msg: string }) =>
        (JSON.parse(r.msg) as { params: { update: { content: { text: string } } } }).params.update.content.text;
      for (const tag of ['A', 'B']) {
        const mine = rows.map(text).filter((t) => t.startsWith(`${tag} `));
        expect(mine).toEqual(Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`));
      }
    } finally {
      check.close();
    }
  });

  it("a second harness opening a session another process has open is refused with session_busy; the first one's turn is whole", async () => {
    const p = place();
    const id = await storedSession(p);
    const env = harnessEnv(p);
    const first = child({ mode: 'harness', env, workspace: p.userHome, sessionId: id, prompt: 'from the first' });
    await first.line(/^opened$/);
    const second = child({ mode: 'harness', env, workspace: p.userHome, sessionId: id, prompt: 'from the second' });
    expect(await second.line(/^(error .*|opened)$/)).toBe('error session_busy');
    expect(await second.exited).toBe(3);
    first.proc.stdin!.write('go\n');
    expect(await first.line(/^result /)).toBe('result end_turn');
    expect(await first.exited).toBe(0);

    const h = makeHarness(p);
    expect(h.store.turns.list(id).map((t) => t.stopReason)).toEqual(['end_turn', 'end_turn']);
    expect(
      h.store.entries
        .list(id)
        .filter((e) => e.kind === 'user_message')
        .map((e) => (e as { text: string }).text),
    ).toEqual(['first', 'from the first']);
    expect(h.store.leases.get(id)).toBeUndefined();
  });

  it('with a wait, the second harness opens the session once the first closed it: both turns stored, in order', async () => {
    const p = place();
    const id = await storedSession(p);
    const env = harnessEnv(p);
    const first = child({ mode: 'harness', env, workspace: p.userHome, sessionId: id, prompt: 'from the first' });
    await first.line(/^opened$/);
    const second = child({
      mode: 'harness',
      env,
      workspace: p.userHome,
      sessionId: id,
      prompt: 'from the second',
      waitMs: 60_000,
    });
    // It waits for the first process (named by its pid) instead of opening under it.
    expect(await second.line(/^(waiting for \d+|opened)$/)).toBe(`waiting for ${first.proc.pid}`);
    first.proc.stdin!.write('go\n');
    expect(await first.line(/^result /)).toBe('result end_turn');
    expect(await first.exited).toBe(0);
    await second.line(/^opened$/);
    second.proc.stdin!.write('go\n');
    expect(await second.line(/^result /)).toBe('result end_turn');
    expect(await second.exited).toBe(0);

    const h = makeHarness(p);
    expect(h.store.turns.list(id).map((t) => t.stopReason)).toEqual(['end_turn', 'end_turn', 'end_turn']);
    const rows = h.store.wire.rows(id);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    // The stored thread holds both turns, each once, in order (not two threads written over each other).
    const stored = h.store.entries
      .list(id)
      .filter((e) => e.kind === 'user_message')
      .map((e) => (e as { text: string }).text);
    expect(stored).toEqual(['first', 'from the first', 'from the second']);
    // The second process loaded the history with the first one's turn in it.
    const s = await h.workspaces.open(p.userHome).openSession(id);
    expect(texts(s)).toEqual(['first', 'from the first', 'from the second']);
  });
});
