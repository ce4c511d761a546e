/**
 * What the editor learns that the agent did not say, or said only to Talaria. Per-turn usage for the editor's context meter: an agent that sends no `usage_update` (recorded
 * kilo, whose prompt answer carries usage) gets one from Talaria at turn end, marked as
 * synthesized; an agent that sends its own (the demo agent) gets none added. And `initialize`
 * through the proxy lists the agent's own authMethods.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { editorEnv, startEditor } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

vi.setConfig({ testTimeout: 240_000 });

const PLAYER = fileURLToPath(new URL('../fakes/bin/fixture-agent.ts', import.meta.url));
const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } };

function player(agent: string, fixture: string): string {
  const copy = join(tempDir('acp-usage'), 'recording.ndjson');
  copyFileSync(fileURLToPath(new URL(`../fixtures/agents/${agent}/${fixture}.ndjson`, import.meta.url)), copy);
  return `${nodeCommand(PLAYER)} "${copy}"`;
}

const usageUpdates = (updates: Record<string, any>[], sessionId: string) =>
  updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'usage_update');

describe.concurrent('usage_update and authMethods through talaria acp', () => {
  it("synthesized from the turn usage when the agent sends none; initialize lists the agent's authMethods", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-usage-cwd');
    const ed = startEditor(['--approve', 'all', '--agent-cmd', player('kilo', 'write')], { cwd, env });
    const init = await ed.request<any>('initialize', INIT);
    // The agent's auth methods, as it listed them in its initialize.
    expect(init.authMethods).toEqual([
      { description: 'Run `kilo auth login` in the terminal', name: 'Login with Kilo', id: 'kilo-login' },
    ]);
    const { sessionId } = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const r = await ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Write a file' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(r.usage.totalTokens).toBe(4087);
    const got = usageUpdates(ed.updates, sessionId);
    expect(got).toHaveLength(1);
    expect(got[0]!.update).toEqual({
      sessionUpdate: 'usage_update',
      used: 4087,
      size: 32_000,
      _meta: { talaria: { synthesized: true, sizeAssumed: true } },
    });
    await ed.close();
    expectValidWire(ed.frames);
  });

  it("the agent's own usage_update passes as it is, none is added", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-usage-cwd');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    await ed.request('initialize', INIT);
    const { sessionId } = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    await ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    const got = usageUpdates(ed.updates, sessionId);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((u) => u.update._meta?.talaria?.synthesized === undefined)).toBe(true);
    await ed.close();
  });
});
