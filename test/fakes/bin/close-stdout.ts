/**
 * Answers initialize, then closes its stdout but keeps running until its stdin closes.
 * With the argument `mid-turn` it answers session/new too, and closes its stdout in the middle
 * of the first prompt (after one chunk), the turn still open.
 */
import { closeSync, writeSync } from 'node:fs';
import { INIT_RESULT } from './raw-lib.js';

const midTurn = process.argv[2] === 'mid-turn';
const write = (msg: Record<string, unknown>) => writeSync(1, JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
const close = () => {
  closeSync(1);
  process.stderr.write('close-stdout: stdout closed, still running\n');
};

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buf += chunk;
  let nl: number;
  while ((nl = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const msg = JSON.parse(line) as { id?: number; method?: string };
    // Raw fd writes: process.stdout is never opened, so closing fd 1 is safe.
    if (msg.method === 'initialize') {
      write({ id: msg.id, result: INIT_RESULT });
      if (!midTurn) close();
    } else if (midTurn && msg.method === 'session/new') {
      write({ id: msg.id, result: { sessionId: 'closing-1' } });
    } else if (midTurn && msg.method === 'session/prompt') {
      write({
        method: 'session/update',
        params: {
          sessionId: 'closing-1',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'about to go quiet' } },
        },
      });
      close();
    }
  }
});
process.stdin.on('end', () => process.exit(0));
setInterval(() => {}, 1 << 30);
