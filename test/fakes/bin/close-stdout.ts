/** Answers initialize, then closes its stdout but keeps running until its stdin closes. */
import { closeSync, writeSync } from 'node:fs';
import { INIT_RESULT } from './raw-lib.js';

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buf += chunk;
  let nl: number;
  while ((nl = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const msg = JSON.parse(line) as { id?: number; method?: string };
    if (msg.method === 'initialize') {
      // Raw fd writes: process.stdout is never opened, so closing fd 1 is safe.
      writeSync(1, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: INIT_RESULT }) + '\n');
      closeSync(1);
      process.stderr.write('close-stdout: stdout closed, still running\n');
    }
  }
});
process.stdin.on('end', () => process.exit(0));
setInterval(() => {}, 1 << 30);
