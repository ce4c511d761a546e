/**
 * Issue 35 item 2: revoking a token ends every connection it opened, on every face. Only `/ws`
 * closed before; an `/acp` editor could go on prompting, and a run stream went on streaming.
 */
import { describe, expect, it, vi } from 'vitest';
import { postRunStream } from '../../src/cli/run-stream-client.js';
import { addToken, revokeToken, tokensFile } from '../../src/server/tokens.js';
import { wsEditor } from '../acp/ws-client.js';
import { serve } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  clientInfo: { name: 'revoke-test', version: '1' },
};

describe('a revoked token', () => {
  it('closes its /acp connection at once; a prompt over it can no longer run', async () => {
    const s = await serve();
    const file = tokensFile(s.harness.home);
    const { token, record } = addToken(file, 'controller', 'editor');
    await vi.waitFor(() => expect(s.server.tokens.verify(token)).toBeDefined());
    const ed = wsEditor(
      `${s.server.origin.replace(/^http/, 'ws')}/acp?agent=demo&cwd=${encodeURIComponent(s.p.userHome)}`,
      token,
    );
    await ed.request('initialize', INIT);
    const { sessionId } = await ed.request<{ sessionId: string }>('session/new', { cwd: s.p.userHome, mcpServers: [] });
    // Another token's connection stays.
    const other = wsEditor(
      `${s.server.origin.replace(/^http/, 'ws')}/acp?agent=demo&cwd=${encodeURIComponent(s.p.userHome)}`,
      s.server.token,
    );
    await other.request('initialize', INIT);

    expect(revokeToken(file, record.id)).toBeDefined();
    await vi.waitFor(() => expect(ed.conn.signal.aborted).toBe(true), { timeout: 10_000 });
    await expect(
      ed.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] }),
    ).rejects.toThrow();
    const turns = (await s.client.api.snapshot({ params: { id: sessionId } })).snapshot.thread.entries.filter(
      (e) => (e as { kind: string }).kind === 'user_message',
    );
    expect(turns).toEqual([]);
    expect(other.conn.signal.aborted).toBe(false);
    other.close();
  });

  it('ends its streamed run answer mid-turn', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const file = tokensFile(s.harness.home);
    const { token, record } = addToken(file, 'controller', 'script');
    await vi.waitFor(() => expect(s.server.tokens.verify(token)).toBeDefined());
    const stream = await postRunStream(s.server.origin, token, { path: s.p.userHome, provider: 'demo', text: 'slow' });
    let seen = 0;
    stream.listen(() => void seen++);
    await vi.waitFor(() => expect(seen).toBeGreaterThan(3), { timeout: 20_000 });
    revokeToken(file, record.id);
    expect(await stream.closed).toBe('broken');
  });
});
