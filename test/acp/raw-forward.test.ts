/**
 * `talaria acp` forwards an agent's `session/update` it does not change as the agent's own bytes
 * (only the session id is Talaria's): whitespace, key order and unicode escapes as the agent wrote
 * them. What it does change (a messageId it adds, a cancelled tool call) or cannot splice safely (a
 * duplicate or escaped key) still reaches the editor right, and every frame is schema-valid.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { editorEnv, startEditor } from './helpers.js';
import { UNCHANGED, NO_MESSAGE_ID } from './raw-lines.js';
import { nodeCommand } from '../prebuilt.js';

vi.setConfig({ testTimeout: 120_000 });

const AGENT = fileURLToPath(new URL('./raw-agent.ts', import.meta.url));
const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } };
const AGENT_SID = 'raw-1';

describe('talaria acp forwards agent lines as their bytes', () => {
  it('unchanged updates keep the bytes the agent sent; changed ones are right; all frames valid', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-raw');
    const ed = startEditor(['--agent-cmd', `${nodeCommand(AGENT)}`], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<{ sessionId: string }>('session/new', { cwd, mcpServers: [] });
    expect(s.sessionId).not.toBe(AGENT_SID);
    await ed.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    const lines = ed.frames
      .filter((f) => f.dir === 'agent->client' && f.msg.method === 'session/update')
      .map((f) => f.raw);
    const sid = JSON.stringify(s.sessionId);
    const agentSid = JSON.stringify(AGENT_SID);
    for (const make of UNCHANGED) expect(lines).toContain(make(AGENT_SID).replace(agentSid, sid));

    const updates = ed.updates.map(
      (p) => p as { sessionId: string; update: Record<string, any>; [k: string]: unknown },
    );
    expect(updates.every((p) => p.sessionId === s.sessionId)).toBe(true);
    // No messageId from the agent: Talaria's, first in the update, the rest as sent.
    const plain = updates.find((p) => p.update.content?.text === 'é plain')!;
    expect(typeof plain.update.messageId).toBe('string');
    const spliced = NO_MESSAGE_ID(AGENT_SID)
      .replace(agentSid, sid)
      .replace('"update":{', `"update":{"messageId":${JSON.stringify(plain.update.messageId)},`);
    expect(lines).toContain(spliced);
    // Changed or not spliceable: re-serialized from what the agent meant.
    expect(
      updates.find((p) => p.update.toolCallId === 't1' && p.update.status === 'failed' && !p.update._meta),
    ).toBeDefined();
    expect(updates.find((p) => p.update.messageId === 'm-3')?.update.content).toEqual({ type: 'text', text: 'dup' });
    expect(lines.some((l) => l.includes('not-this-one'))).toBe(false);
    expect(updates.find((p) => p.update.messageId === 'm-4')?.update.content).toEqual({ type: 'text', text: 'esc' });
    // The extra params member the agent sent travels too.
    expect(updates.find((p) => p.update.messageId === 'm-2')?._meta).toEqual({ vendor: { n: [1, 2500, true, null] } });
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames);
  });
});
