/**
 * Issue 35 item 2, the caps face: revoking the server token that opened a `/captp` connection
 * closes it at once (it stayed open, and its references kept working).
 */
import '../../src/caps/lockdown.js';
import { describe, expect, it, vi } from 'vitest';
import { CapsHost, capsUpgradeHandler, connectCaps, E, type CapsSession } from '../../src/caps/index.js';
import { addToken, revokeToken, tokensFile } from '../../src/server/tokens.js';
import { demoSession, serve } from '../server/helpers.js';

vi.setConfig({ testTimeout: 90_000 });

describe('caps under serve: a revoked server token', () => {
  it('closes the /captp connections it opened; the others stay', async () => {
    const s = await serve({ permission: 'auto' });
    const host = new CapsHost({ harness: s.harness, cursor: s.server.events });
    const up = capsUpgradeHandler(host);
    s.server.mount('/captp', (req, socket, head) => up.handleUpgrade(req, socket, head));
    const url = `${s.server.origin.replace(/^http/, 'ws')}/captp`;
    const id = await demoSession(s);
    const ref = host.refs.mint({ facet: 'controller', target: id }).uri;
    const file = tokensFile(s.harness.home);
    const { token, record } = addToken(file, 'controller', 'caps client');
    await vi.waitFor(() => expect(s.server.tokens.verify(token)).toBeDefined());
    const revoked = await connectCaps<CapsSession>(url, ref, { token });
    const kept = await connectCaps<CapsSession>(url, ref, { token: s.server.token });
    await E(revoked.root).info();
    let closed = false;
    void revoked.closed.then(() => (closed = true));
    revokeToken(file, record.id);
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 10_000 });
    await expect(E(revoked.root).info()).rejects.toThrow();
    expect(await E(kept.root).info()).toMatchObject({ id });
    await kept.close();
    up.wss.close();
    await host.close();
  });
});
