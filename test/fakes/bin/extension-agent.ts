/**
 * An agent that uses ACP's extension points: an unknown update kind, `_meta` on updates, on the
 * notification and on answers, an extension notification of its own, and an extension method
 * (`_vendor/ping` answers its params back). For the pass-through tests of `talaria acp`.
 */
import { INIT_RESULT, readMessages, respond, respondError, send } from './raw-lib.js';

readMessages((msg) => {
  if (msg.id === undefined || msg.method === undefined) return;
  const sessionId = String(msg.params?.sessionId ?? '');
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, { ...INIT_RESULT, agentInfo: { name: 'extension-agent', version: '1.0.0' } });
    case 'session/new':
      return respond(msg.id, { sessionId: 'ext-1' });
    case '_vendor/ping':
      return respond(msg.id, { pong: msg.params, _meta: { vendor: 'x' } });
    case 'session/prompt':
      send({
        jsonrpc: '2.0',
        method: 'session/update',
        params: { sessionId, update: { sessionUpdate: 'vendor_progress', percent: 50, _meta: { vendor: 'p' } } },
      });
      send({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId,
          update: {
            sessionUpdate: 'agent_message_chunk',
            messageId: 'm-1',
            content: { type: 'text', text: 'ok' },
            _meta: { vendor: 'chunk' },
          },
          _meta: { vendor: 'params' },
        },
      });
      send({ jsonrpc: '2.0', method: '_vendor/note', params: { sessionId, note: 'hello' } });
      return respond(msg.id, { stopReason: 'end_turn', _meta: { vendor: 'answer' } });
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
});
