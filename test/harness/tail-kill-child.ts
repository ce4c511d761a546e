/**
 * Child for the mid-message kill test: streams ONE long agent message, a chunk per tick with its
 * frame (the thread's `appended` hint set, as the live reducer sets it), so the recorder commits
 * many times inside the message and stores its growth as tails. Prints `n=<last committed seq>`
 * after every commit until it is killed. Chunk k is chunkText(k); frame k carries the same text.
 * Usage: tail-kill-child.ts <home>
 */
import { openStore } from '../../src/store/index.js';
import { createRecorder } from '../../src/harness/recorder.js';
import type { SessionEvent } from '../../src/session/events.js';
import { chunkText } from './tail-kill-text.js';

const home = process.argv[2];
if (!home) {
  process.stderr.write('usage: tail-kill-child.ts <home>\n');
  process.exit(2);
}
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
const ev = (type: string, body: Record<string, unknown>) => rec.onEvent({ type, sessionId: 'agent', seq: ++evSeq, at: Date.now(), ...body } as unknown as SessionEvent);
const entry = (text: string) => ({ id: 'a1', kind: 'assistant_message', text, blocks: [], turnId: 'turn-1' });

ev('turn.started', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'go' }] });
ev('entry.added', { index: 0, entry: { id: 'u1', kind: 'user_message', text: 'go', blocks: [], turnId: 'turn-1' } });
let k = 0;
let text = '';
function tick(): void {
  k++;
  const chunk = chunkText(k);
  // The entry change first, then its frame: a commit forced by the frame (maxBatch) takes both.
  if (k === 1) ev('entry.added', { index: 1, entry: entry((text = chunk)) });
  else ev('entry.updated', { index: 1, entry: entry((text += chunk)), appended: chunk });
  const msg = {
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 'agent', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } } },
  };
  rec.onFrame({ t_ms: k, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
  setImmediate(tick);
}
const started = Date.now();
while (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 5));
if (process.env.TALARIA_WRITER_THREAD === '1' && !rec.threaded) process.stderr.write('the writer thread did not start\n');
tick();
