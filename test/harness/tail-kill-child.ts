/**
 * Child for the mid-message kill test: streams ONE long agent message, a chunk per tick with its
 * frame (the thread's `appended` hint set, as the live reducer sets it), so the recorder commits
 * many times inside the message and stores its growth as tails. Prints `n=<last committed seq>`
 * after every commit until it is killed. Chunk k is chunkText(k); frame k carries the same text.
 * Usage: tail-kill-child.ts <home>
 */
import { startTicking, victim } from './kill-child-lib.js';
import { chunkText } from './tail-kill-text.js';

const { rec, ev } = victim('tail-kill-child.ts');
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
    params: {
      sessionId: 'agent',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } },
    },
  };
  rec.onFrame({ t_ms: k, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
  setImmediate(tick);
}
await startTicking(rec, tick);
