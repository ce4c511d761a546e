/**
 * What the SIGKILL children (sigkill-child.ts, tail-kill-child.ts) share: a store at argv[2] with
 * the session 'victim', its recorder printing `n=<last committed seq>` after every commit, an
 * event helper, and a start that waits for the writer thread when TALARIA_WRITER_THREAD=1.
 */
import { openStore } from '../../src/store/index.js';
import { createRecorder, type Recorder } from '../../src/harness/recorder.js';
import type { SessionEvent } from '../../src/session/events.js';

export function victim(usage: string): { rec: Recorder; ev: (type: string, body: Record<string, unknown>) => void } {
  const home = process.argv[2];
  if (!home) {
    process.stderr.write(`usage: ${usage} <home>\n`);
    process.exit(2);
  }
  // If the test runner dies, our stdin closes: do not linger.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  const store = openStore({ home });
  store.sessions.create({ id: 'victim', provider: 'durability', cwd: '/' });
  const rec = createRecorder(store, {
    sessionKey: 'victim',
    onFlush: (i) => process.stdout.write(`n=${i.lastSeq}\n`),
    onError: (e) => process.stderr.write(`recorder error: ${e.message}\n`),
  });
  let evSeq = 0;
  const ev = (type: string, body: Record<string, unknown>) =>
    rec.onEvent({ type, sessionId: 'agent', seq: ++evSeq, at: Date.now(), ...body } as unknown as SessionEvent);
  return { rec, ev };
}

/** Starts `tick`; with TALARIA_WRITER_THREAD=1 once the thread is up, so every commit is its. */
export async function startTicking(rec: Recorder, tick: () => void): Promise<void> {
  const started = Date.now();
  while (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded && Date.now() - started < 20_000)
    await new Promise((r) => setTimeout(r, 5));
  if (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded)
    process.stderr.write('the writer thread did not start\n');
  tick();
}
