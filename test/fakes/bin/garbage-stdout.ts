/**
 * A dirty stdout: before each answer it writes non-JSON lines, invalid JSON-RPC objects, a JSON
 * array, a CRLF line and blank lines, plus one valid session/update; then it answers normally.
 */
import { INIT_RESULT, readMessages, respond, textChunk, writeLine } from './raw-lib.js';

const GARBAGE = [
  'this is not json',
  '⚠️  Reached maximum iterations (90). Requesting summary...',
  '{"jsonrpc":"2.0"}', // neither request nor response
  '{"jsonrpc":"2.0","method":42}', // method not a string
  '{"jsonrpc":"2.0","id":{"x":1},"result":{}}', // bad id
  '[{"jsonrpc":"2.0","method":"session/update","params":{}}]', // a batch
  '42',
  '',
  '   ',
  '{"jsonrpc":"2.0","method":"_garbage/ping","params":{}}\r', // valid, CRLF-terminated
  '{"truncated": ',
];

function garbage(): void {
  for (const line of GARBAGE) writeLine(line);
}

readMessages((msg) => {
  if (msg.id === undefined) return;
  garbage();
  if (msg.method === 'initialize') return respond(msg.id, INIT_RESULT);
  if (msg.method === 'session/new') return respond(msg.id, { sessionId: 'garbage-1' });
  if (msg.method === 'session/prompt') {
    textChunk('garbage-1', 'still ');
    garbage();
    textChunk('garbage-1', 'alive');
    return respond(msg.id, { stopReason: 'end_turn' });
  }
});
