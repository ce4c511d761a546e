/** Wire fixtures (NDJSON `{t_ms, dir, msg}` lines) shared by the server and web tests. */

/** A fixture whose 6th frame is a session/update the ACP schema refuses (content type "txt"). */
export function badFrameFixture(cwd: string): string {
  const lines: unknown[] = [];
  let t = 0;
  const out = (msg: unknown) => lines.push({ t_ms: t++, dir: 'client->agent', msg });
  const inn = (msg: unknown) => lines.push({ t_ms: t++, dir: 'agent->client', msg });
  out({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  inn({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: 1, agentInfo: { name: 'fixture-agent', version: '1.0.0' }, agentCapabilities: {} },
  });
  out({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } });
  inn({ jsonrpc: '2.0', id: 1, result: { sessionId: 'fx-1' } });
  out({
    jsonrpc: '2.0',
    id: 2,
    method: 'session/prompt',
    params: { sessionId: 'fx-1', prompt: [{ type: 'text', text: 'hello' }] },
  });
  inn({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'fx-1',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'txt', text: 'hi' } },
    },
  });
  inn({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'fx-1',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
    },
  });
  inn({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
