/**
 * A well-behaved raw agent. Prompt text is echoed back as one agent_message_chunk per block.
 * A prompt "call:<method>" makes the agent send that request to the client first and echo
 * the JSON reply (result or error). Responses carry extra fields to prove nothing is stripped.
 */
import { INIT_RESULT, readMessages, respond, respondError, send, textChunk, type Msg } from './raw-lib.js';

let nextId = 0;
const waiting = new Map<number, (reply: Msg) => void>();

readMessages((msg) => {
  if (msg.method === undefined) {
    if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg);
    return;
  }
  if (msg.id === undefined) return; // notifications (session/cancel, $/cancel_request): ignored
  switch (msg.method) {
    case 'initialize':
      return respond(msg.id, {
        ...INIT_RESULT,
        agentInfo: { name: 'echo-agent', version: '1.0.0' },
        _meta: { echo: true },
      });
    case 'session/new':
      return respond(msg.id, { sessionId: 'echo-1', extraField: { kept: true } });
    case 'session/prompt':
      return void prompt(msg);
    default:
      return respondError(msg.id, -32601, 'Method not found', { method: msg.method });
  }
});

async function prompt(msg: Msg): Promise<void> {
  const sessionId = String(msg.params?.sessionId);
  for (const block of (msg.params?.prompt ?? []) as { type: string; text?: string }[]) {
    if (block.type !== 'text' || block.text === undefined) continue;
    if (block.text.startsWith('call:')) {
      const id = nextId++;
      const reply = new Promise<Msg>((resolve) => waiting.set(id, resolve));
      send({ id, method: block.text.slice(5), params: { sessionId } });
      const r = await reply;
      textChunk(sessionId, JSON.stringify(r.error !== undefined ? { error: r.error } : { result: r.result }));
    } else {
      textChunk(sessionId, block.text);
    }
  }
  respond(msg.id, { stopReason: 'end_turn', extraTopLevel: 'kept', _meta: { echo: true } });
}
