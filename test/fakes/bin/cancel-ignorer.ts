/**
 * Never answers `cancelled`: every prompt streams a chunk at once, then one every 20 ms, and ends
 * with `end_turn` after 200 ms — or, once `session/cancel` arrives, `argv[2]` ms after it (default
 * 600). With 0 its end follows the cancel at once, as an answer that crossed it would; with 600 it
 * plainly ignores the cancel.
 */
import { readMessages, respond, textChunk } from './raw-lib.js';

const afterCancelMs = Number(process.argv[2] ?? 600);
let running: { end: (inMs: number) => void } | undefined;

readMessages((msg) => {
  if (msg.method === 'session/cancel') return running?.end(afterCancelMs);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize')
    return respond(msg.id, {
      protocolVersion: 1,
      agentCapabilities: {},
      agentInfo: { name: 'cancel-ignorer', version: '0.0.1' },
      authMethods: [],
    });
  if (msg.method === 'session/new') return respond(msg.id, { sessionId: 'ignorer-1' });
  if (msg.method === 'session/prompt') {
    const id = msg.id;
    textChunk('ignorer-1', 'first ');
    const tick = setInterval(() => textChunk('ignorer-1', 'more '), 20);
    let timer = setTimeout(() => turn.end(0), 200);
    const turn = {
      end(inMs: number) {
        clearTimeout(timer);
        timer = setTimeout(() => {
          clearInterval(tick);
          running = undefined;
          respond(id, { stopReason: 'end_turn' });
        }, inMs);
      },
    };
    running = turn;
    return;
  }
  respond(msg.id, {});
});
