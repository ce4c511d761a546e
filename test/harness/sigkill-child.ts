/**
 * Child for the SIGKILL durability test: records frames (and turn/entry events) into a store as
 * fast as it can, printing `n=<last committed seq>` after every commit, until it is killed.
 * Frame k (1-based) says `frame k` so the parent can check order and content.
 * Usage: sigkill-child.ts <home>
 */
import { openStore } from '../../src/store/index.js';
import { createRecorder } from '../../src/harness/recorder.js';
import type { SessionEvent } from '../../src/session/events.js';

const home = process.argv[2];
if (!home) {
  process.stderr.write('usage: sigkill-child.ts <home>\n');
  process.exit(2);
}
// If the test runner dies, our stdin closes: do not linger.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();

const store = openStore({ home });
store.sessions.create({ id: 'victim', provider: 'durability', cwd: '/' });
const rec = createRecorder(store, {
  sessionKey: 'victim',
  onFlush: (i) => process.stdout.write(`n=${i.lastSeq}\n`), // stdout to a pipe is synchronous on Linux
  onError: (e) => process.stderr.write(`recorder error: ${e.message}\n`),
});

let k = 0;
let evSeq = 0;
let turn = 0;
let text = '';
const ev = (type: string, body: Record<string, unknown>) => rec.onEvent({ type, sessionId: 'agent', seq: ++evSeq, at: Date.now(), ...body } as unknown as SessionEvent);

function frameText(n: number): string {
  // Every 37th frame is large (spans several pages) so kills also land inside big commits.
  return `frame ${n} ` + (n % 37 === 0 ? 'x'.repeat(20_000) : 'y'.repeat(n % 50));
}

function tick(): void {
  const burst = 1 + (k % 13);
  for (let i = 0; i < burst; i++) {
    k++;
    if (k % 40 === 1) {
      turn++;
      text = '';
      ev('turn.started', { turnId: `turn-${turn}`, prompt: [{ type: 'text', text: `prompt ${turn}` }] });
      ev('entry.added', { index: (turn - 1) * 2, entry: { id: `u${turn}`, kind: 'user_message', text: `prompt ${turn}`, blocks: [] } });
    }
    const msg = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 'agent', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: frameText(k) } } },
    };
    rec.onFrame({ t_ms: k, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
    text += `${k},`;
    ev('entry.updated', { index: (turn - 1) * 2 + 1, entry: { id: `a${turn}`, kind: 'assistant_message', text, blocks: [], turnId: `turn-${turn}` } });
    if (k % 40 === 0) ev('turn.ended', { turnId: `turn-${turn}`, stopReason: 'end_turn', durationMs: 1 });
  }
  setImmediate(tick);
}
// With TALARIA_WRITER_THREAD=1 every commit is the writer thread's: start once it is up.
const started = Date.now();
while (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 5));
if (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded) process.stderr.write('the writer thread did not start\n');
tick();
