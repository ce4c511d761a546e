/** The wire log route carries the wire checker's verdict per frame (`problem`), across pages. */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/server/contract/index.js';
import { serve } from './helpers.js';

/** A fixture whose 6th frame is a session/update the ACP schema refuses (content type "txt"). */
export function badFrameFixture(cwd: string): string {
  const lines: unknown[] = [];
  let t = 0;
  const out = (msg: unknown) => lines.push({ t_ms: t++, dir: 'client->agent', msg });
  const inn = (msg: unknown) => lines.push({ t_ms: t++, dir: 'agent->client', msg });
  out({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  inn({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'fixture-agent', version: '1.0.0' }, agentCapabilities: {} } });
  out({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } });
  inn({ jsonrpc: '2.0', id: 1, result: { sessionId: 'fx-1' } });
  out({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 'fx-1', prompt: [{ type: 'text', text: 'hello' }] } });
  inn({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'fx-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'txt', text: 'hi' } } } });
  inn({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'fx-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } } });
  inn({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('wire log: schema problems', () => {
  it('marks the frame that failed the ACP schema, and judges a response by its request on an earlier page', async () => {
    const s = await serve();
    const { session } = await s.client.api.importSession({ body: { text: badFrameFixture(s.p.userHome), provider: 'demo', cwd: s.p.userHome } });
    // Two pages: the prompt's response (seq 8) is judged against its request on page one (seq 5).
    const first = await s.client.api.wireLog({ params: { id: session.id }, query: { limit: 6 } });
    const second = await s.client.api.wireLog({ params: { id: session.id }, query: { after: first.next! } });
    for (const page of [first, second]) ROUTES.wireLog.response.parse(page);
    const frames = [...first.frames, ...second.frames];
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const bad = frames.filter((f) => f.problem !== undefined);
    expect(bad.map((f) => f.seq)).toEqual([6]);
    expect(bad[0]!.problem).toMatch(/^\/params\/update\/content/);
    expect(bad[0]!.problem).toContain('txt');
  });
});
