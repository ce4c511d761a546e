/**
 * An agent that answers a prompt with FRAMES chunks of ~1 KB, honouring its stdout's
 * backpressure, and writes how many it has written to the file PROGRESS whenever a write has to wait
 * ("N waiting") and when it is done ("N done"): the test of `talaria acp` with an editor that stops
 * reading sees from it whether the agent was held back or read into memory.
 */
// node flood-agent.ts FRAMES PROGRESS
import { writeFileSync } from 'node:fs';
import { INIT_RESULT, readMessages, respond, respondError } from '../fakes/bin/raw-lib.js';

// Arguments, not env: Talaria passes an agent no ambient variables.
const FRAMES = Number(process.argv[2] ?? 20_000);
const PROGRESS = process.argv[3]!;
const FILL = 'x'.repeat(1000);

async function flood(sid: string): Promise<void> {
  for (let i = 0; i < FRAMES; i++) {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: sid,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `<${i}>${FILL}` } },
      },
    });
    if (!process.stdout.write(line + '\n')) {
      writeFileSync(PROGRESS, `${i + 1} waiting`);
      await new Promise((r) => process.stdout.once('drain', r));
    }
  }
  writeFileSync(PROGRESS, `${FRAMES} done`);
}

let n = 0;
readMessages((msg) => {
  if (msg.id === undefined || msg.method === undefined) return;
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, { ...INIT_RESULT, agentInfo: { name: 'flood-fake', version: '1.0.0' } });
    case 'session/new':
      return respond(msg.id, { sessionId: `flood-${++n}` });
    case 'session/prompt': {
      const id = msg.id;
      const sid = String(msg.params.sessionId);
      return void flood(sid).then(() => respond(id, { stopReason: 'end_turn' }));
    }
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
});
