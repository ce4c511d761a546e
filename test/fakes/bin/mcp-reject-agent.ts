/**
 * Fails `session/new` with -32603 whenever it is given MCP servers (as Hermes can when a server
 * will not start); without servers it opens a session and echoes prompts. Logs every received
 * frame to MCP_REJECT_LOG when set. It names itself Hermes, so it gets Hermes' quirk set.
 */
import { appendFileSync } from 'node:fs';
import { INIT_RESULT, readMessages, respond, respondError, textChunk } from './raw-lib.js';

readMessages((msg) => {
  if (process.env.MCP_REJECT_LOG) appendFileSync(process.env.MCP_REJECT_LOG, JSON.stringify(msg) + '\n');
  if (msg.id === undefined) return;
  if (msg.method === 'initialize')
    return respond(msg.id, { ...INIT_RESULT, agentInfo: { name: 'hermes-agent', version: '0.18.2' } });
  if (msg.method === 'session/new') {
    const servers = (msg.params?.mcpServers ?? []) as { name?: string }[];
    if (servers.length)
      return respondError(msg.id, -32603, 'Internal error', {
        details: `MCP server ${servers[0]?.name} failed to start: command not found`,
      });
    return respond(msg.id, { sessionId: 'mcp-1' });
  }
  if (msg.method === 'session/prompt') {
    textChunk('mcp-1', 'no MCP here');
    return respond(msg.id, { stopReason: 'end_turn' });
  }
  respondError(msg.id, -32601, 'Method not found', { method: msg.method });
});
