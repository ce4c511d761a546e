import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SessionEvent } from '../../src/session/events.js';
import type { Entry } from '../../src/thread/types.js';
import { openStore } from '../../src/store/index.js';
import { createRecorder, type FlushInfo } from '../../src/harness/recorder.js';
import { tempHome } from '../store/helpers.js';
import { chunkText } from './tail-kill-text.js';
import { nodeArgs } from '../prebuilt.js';
import { rawDb } from '../../src/store/sqlite.js';

const CHILD = fileURLToPath(new URL('./tail-kill-child.ts', import.meta.url));

let evSeq = 0;
const ev = (type: SessionEvent['type'], body: Record<string, unknown>): SessionEvent =>
  ({ type, sessionId: 'agent-1', seq: ++evSeq, at: 1000 + evSeq, ...body }) as unknown as SessionEvent;
const msg = (id: string, text: string): Entry => ({
  id,
  kind: 'assistant_message',
  text,
  blocks: [],
  turnId: 'turn-1',
});

function setup(thread = false) {
  const home = tempHome('tails');
  const store = openStore({ home });
  const other = openStore({ home });
  store.sessions.create({ id: 's', provider: 'p', cwd: '/', agentSessionId: 'agent-1' });
  const flushes: FlushInfo[] = [];
  const rec = createRecorder(store, { sessionKey: 's', thread, onFlush: (i) => flushes.push(i) });
  const rowJson = (idx: number) =>
    (
      rawDb(other).prepare('SELECT json FROM entries WHERE session_id = ? AND idx = ?').get('s', idx) as {
        json: string;
      }
    ).json;
  const tails = () => (rawDb(other).prepare('SELECT COUNT(*) AS n FROM entry_tails').get() as { n: number }).n;
  return { store, other, rec, flushes, rowJson, tails, done: () => (store.close(), other.close()) };
}

describe('recorder: a growing message is stored as tails', () => {
  it('after its first commit a streamed message costs each commit only the text appended; the next entry or the turn end writes it whole', () => {
    const t = setup();
    t.rec.onEvent(ev('turn.started', { turnId: 'turn-1', prompt: [] }));
    let text = 'Hel';
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('e1', text) }));
    t.rec.flush();
    const first = t.rowJson(0);
    for (let c = 0; c < 50; c++) {
      const chunk = ` chunk ${c}`;
      t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg('e1', (text += chunk)), appended: chunk }));
      t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg('e1', (text += '.')), appended: '.' }));
      t.rec.flush();
      // Another connection reads the whole text so far after every commit; the row is not rewritten.
      expect(t.other.entries.list('s')).toEqual([msg('e1', text)]);
      expect(t.rowJson(0)).toBe(first);
    }
    expect(t.tails()).toBe(50);
    expect(t.flushes.at(-1)).toEqual({ frames: 0, lastSeq: 0, entries: 1 });
    // The next entry settles it: one full row again, no tails.
    t.rec.onEvent(ev('entry.added', { index: 1, entry: msg('e2', 'next') }));
    t.rec.flush();
    expect(t.tails()).toBe(0);
    expect(JSON.parse(t.rowJson(0))).toEqual(msg('e1', text));
    // More text for e2 after its first commit: tails again, and the turn's end writes it whole.
    t.rec.onEvent(ev('entry.updated', { index: 1, entry: msg('e2', 'next!'), appended: '!' }));
    t.rec.flush();
    expect(t.tails()).toBe(1);
    t.rec.onEvent(ev('turn.ended', { turnId: 'turn-1', stopReason: 'end_turn', durationMs: 1 }));
    expect(t.tails()).toBe(0);
    expect(t.other.entries.list('s')).toEqual([msg('e1', text), msg('e2', 'next!')]);
    t.done();
  });

  it('a change that is not an append, or a message first seen in this batch, is written whole', () => {
    const t = setup();
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('e1', 'a') }));
    t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg('e1', 'ab'), appended: 'b' }));
    t.rec.flush();
    expect(t.tails()).toBe(0);
    t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg('e1', 'abc'), appended: 'c' }));
    t.rec.flush();
    expect(t.tails()).toBe(1);
    t.rec.onEvent(
      ev('entry.updated', {
        index: 0,
        entry: { ...msg('e1', 'abc'), blocks: [{ type: 'image', data: '', mimeType: 'image/png' }] },
      }),
    );
    t.rec.flush();
    expect(t.tails()).toBe(0);
    // An append to an entry this recorder never wrote (another id at that index) is written whole.
    t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg('e9', 'new'), appended: 'w' }));
    t.rec.flush();
    expect(t.tails()).toBe(0);
    expect(t.other.entries.list('s')).toEqual([msg('e9', 'new')]);
    t.done();
  });

  it.each(['inline', 'thread'])(
    'killed mid-message (SIGKILL), the store reopens with the message as far as its committed frames (%s)',
    async (mode) => {
      const home = tempHome('tailkill');
      const env = { ...process.env, TALARIA_WRITER_THREAD: mode === 'thread' ? '1' : '0' };
      const child = spawn(process.execPath, [...nodeArgs(CHILD), home], { stdio: ['pipe', 'pipe', 'pipe'], env });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('close', (_code, signal) => resolve(signal)),
      );
      let reported = 0;
      let commits = 0;
      let killed = false;
      for await (const line of createInterface({ input: child.stdout })) {
        const m = /^n=(\d+)$/.exec(line);
        if (!m) continue;
        reported = Math.max(reported, Number(m[1]));
        // Many commits inside the one message, so its growth is in tails when the kill lands.
        if (!killed && ++commits >= 30 && reported >= 300) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
      expect(await exited).toBe('SIGKILL');
      expect(stderr).toBe('');
      const store = openStore({ home });
      try {
        expect(rawDb(store).pragma('integrity_check', { simple: true })).toBe('ok');
        const frames = store.wire.count('victim');
        expect(frames).toBeGreaterThanOrEqual(reported);
        let want = '';
        for (let k = 1; k <= frames; k++) want += chunkText(k);
        const entries = store.entries.loadSnapshot('victim')!.entries;
        expect(entries.map((e) => e.id)).toEqual(['u1', 'a1']);
        expect((entries[1] as { text: string }).text).toBe(want);
        // The path under test: the message's row holds only its start, the rest is in tails.
        expect(
          (rawDb(store).prepare('SELECT COUNT(*) AS n FROM entry_tails').get() as { n: number }).n,
        ).toBeGreaterThan(0);
      } finally {
        store.close();
      }
    },
  );
});
