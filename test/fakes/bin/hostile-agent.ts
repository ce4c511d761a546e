/**
 * An agent that tries to make its client hold memory: before answering session/new it sends
 * updates for thousands of session ids nobody opened, and a long run of big updates for one of
 * them (argv: <unknown ids> <hog updates> <hog update bytes>). Then it behaves: two early updates
 * for the real session, the answer, and a prompt answered with one chunk.
 */
import { INIT_RESULT, readMessages, respond, textChunk, update } from './raw-lib.js';

const [ids = 2000, hog = 1000, bytes = 2048] = process.argv.slice(2).map(Number);

readMessages((msg) => {
  if (msg.method === 'initialize') return respond(msg.id, INIT_RESULT);
  if (msg.method === 'session/new') {
    for (let i = 0; i < ids; i++) {
      textChunk(`ghost-${i}`, 'boo');
      textChunk(`ghost-${i}`, 'boo again');
    }
    for (let i = 0; i < hog; i++) textChunk('hog', 'x'.repeat(bytes));
    update('real', {
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'help', description: 'help' }],
    });
    textChunk('real', 'welcome');
    return respond(msg.id, { sessionId: 'real' });
  }
  if (msg.method === 'session/prompt') {
    textChunk(String(msg.params?.sessionId), 'hello');
    return respond(msg.id, { stopReason: 'end_turn' });
  }
  if (msg.id !== undefined && msg.method !== undefined) respond(msg.id, null);
});
