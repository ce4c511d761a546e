/** Answers initialize and session/new; on prompt streams two updates, then dies with code 3. */
import { INIT_RESULT, readMessages, respond, textChunk } from './raw-lib.js';

readMessages((msg) => {
  if (msg.method === 'initialize') return respond(msg.id, INIT_RESULT);
  if (msg.method === 'session/new') return respond(msg.id, { sessionId: 'crash-1' });
  if (msg.method === 'session/prompt') {
    textChunk('crash-1', 'working on it');
    textChunk('crash-1', '...');
    process.stderr.write('Traceback (most recent call last):\nRuntimeError: fake model backend exploded\n');
    process.exit(3);
  }
});
