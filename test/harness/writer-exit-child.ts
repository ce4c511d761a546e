/**
 * Child for "the thread keeps no process alive": records a turn through the writer thread and
 * then simply ends its script, with the recorder and the store left open. Prints `threaded`
 * once the thread took the batches. Usage: writer-exit-child.ts <home>
 */
import { openStore } from '../../src/store/index.js';
import { createRecorder } from '../../src/harness/recorder.js';
import type { SessionEvent } from '../../src/session/events.js';

const store = openStore({ home: process.argv[2]! });
store.sessions.create({ id: 'victim', provider: 'exit', cwd: '/' });
const rec = createRecorder(store, {
  sessionKey: 'victim',
  thread: true,
  onError: (e) => process.stderr.write(`recorder error: ${e.message}\n`),
});
const started = Date.now();
while (!rec.threaded && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 5));
process.stdout.write(rec.threaded ? 'threaded\n' : 'not threaded\n');
for (let i = 1; i <= 100; i++) {
  const msg = { jsonrpc: '2.0', method: 'session/update', params: { i } };
  rec.onFrame({ t_ms: i, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
}
rec.onEvent({
  type: 'turn.ended',
  sessionId: 'a',
  seq: 1,
  at: Date.now(),
  turnId: 't1',
  stopReason: 'end_turn',
  durationMs: 1,
} as unknown as SessionEvent);
