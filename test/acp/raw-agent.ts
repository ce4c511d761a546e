/**
 * An agent whose `session/update` lines are written by hand (raw-lines.ts), for the test that
 * `talaria acp` forwards what it does not change as the agent's own bytes.
 */
import { INIT_RESULT, readMessages, respond, respondError, writeLine } from '../fakes/bin/raw-lib.js';
import { CANCELLED, DUPLICATE_SID, ESCAPED_KEY, NO_MESSAGE_ID, UNCHANGED } from './raw-lines.js';

const SID = 'raw-1';

readMessages((msg) => {
  if (msg.id === undefined || msg.method === undefined) return;
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, { ...INIT_RESULT, agentInfo: { name: 'raw-agent', version: '1.0.0' } });
    case 'session/new':
      return respond(msg.id, { sessionId: SID });
    case 'session/prompt':
      for (const line of UNCHANGED) writeLine(line(SID));
      for (const line of [NO_MESSAGE_ID, CANCELLED, DUPLICATE_SID, ESCAPED_KEY]) writeLine(line(SID));
      return respond(msg.id, { stopReason: 'end_turn' });
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
});
