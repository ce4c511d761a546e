/**
 * Child for the SIGKILL durability test: records frames (and turn/entry events) into a store as
 * fast as it can, printing `n=<last committed seq>` after every commit, until it is killed.
 * Frame k (1-based) says `frame k` so the parent can check order and content.
 * Usage: sigkill-child.ts <home>
 */
import { startTicking, victim } from './kill-child-lib.js';

const { rec, ev } = victim('sigkill-child.ts');

let k = 0;
let turn = 0;
let text = '';

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
      ev('entry.added', {
        index: (turn - 1) * 2,
        entry: { id: `u${turn}`, kind: 'user_message', text: `prompt ${turn}`, blocks: [] },
      });
    }
    const msg = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'agent',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: frameText(k) } },
      },
    };
    rec.onFrame({ t_ms: k, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
    text += `${k},`;
    ev('entry.updated', {
      index: (turn - 1) * 2 + 1,
      entry: { id: `a${turn}`, kind: 'assistant_message', text, blocks: [], turnId: `turn-${turn}` },
    });
    if (k % 40 === 0) ev('turn.ended', { turnId: `turn-${turn}`, stopReason: 'end_turn', durationMs: 1 });
  }
  setImmediate(tick);
}
await startTicking(rec, tick);
