import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { createServer, connect, type Socket } from 'node:net';
import {
  connectCaps,
  E,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type CapsSession,
  type FactChange,
} from '../../src/caps/index.js';
import { collector, factView as view, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

/** A loopback TCP proxy whose link can go silent (a partition: nothing passes, nothing closes). */
async function partitionableProxy(target: string): Promise<{ url: string; partition(): void; close(): void }> {
  const u = new URL(target);
  const links: [Socket, Socket][] = [];
  const server = createServer((c) => {
    const up = connect(Number(u.port), u.hostname);
    c.pipe(up);
    up.pipe(c);
    links.push([c, up]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}${u.pathname}`,
    partition: () => {
      for (const [c, up] of links) {
        c.unpipe(up);
        up.unpipe(c);
        c.pause();
        up.pause();
      }
    },
    close: () => {
      for (const [c, up] of links) {
        c.destroy();
        up.destroy();
      }
      server.close();
    },
  };
}

describe('caps: fork, model and mode switches, heartbeats', () => {
  it('fork: a new controller for a new session with its own history (the source is untouched), its reference a child of the source’s', async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    await E(E(s).prompt('before the fork')).result();
    const src = await E(s).info();
    const f = await E(s).fork();
    const fork = await E(f).info();
    expect(fork.id).not.toBe(src.id);
    expect(fork.facet).toBe('controller');
    expect((await E(E(f).prompt('only on the fork')).result()).stopReason).toBe('end_turn');
    const forkText = JSON.stringify((await E(f).snapshot()).entries);
    const srcText = JSON.stringify((await E(s).snapshot()).entries);
    expect(forkText).toContain('before the fork');
    expect(forkText).toContain('only on the fork');
    expect(srcText).not.toContain('only on the fork');
    expect(t.h.store.sessions.get(fork.id)).toBeDefined();
    // The fork's reference hangs under the session's, which hangs under the launcher: revoking the launcher cuts both.
    const launcherRow = t.host.refs.list().find((r) => r.facet === 'launcher')!;
    t.host.refs.revoke(launcherRow.id);
    await expect(E(f).info()).rejects.toThrow(/ref_revoked/);
    await expect(E(s).info()).rejects.toThrow(/ref_revoked/);
    await c.close();
  });

  it('setModel / setMode: the agent switches, and the session fact is re-asserted with the new model and mode', async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    const id = (await E(s).info()).id;
    const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace({ methods: ['observe'] }).uri);
    const seen = collector<FactChange>();
    await E(d.root).observe(
      { type: 'session', id },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    await seen.until((xs) => view(xs).length === 1);
    expect(view(seen.items)[0]).toMatchObject({ model: 'demo-fast', mode: 'ask' });
    expect(await E(s).setModel('demo-thorough')).toMatchObject({ currentId: 'demo-thorough' });
    await seen.until((xs) => view(xs)[0]?.model === 'demo-thorough');
    expect(await E(s).setMode('auto')).toMatchObject({ currentId: 'auto' });
    await seen.until((xs) => view(xs)[0]?.mode === 'auto');
    // Each change was a retraction and an assertion: one fact at any time, never two.
    expect(view(seen.items)).toHaveLength(1);
    expect(seen.items.filter((x) => x.op === 'del').length).toBeGreaterThanOrEqual(2);
    expect(t.h.store.sessions.get(id)).toMatchObject({ modelId: 'demo-thorough', modeId: 'auto' });
    // A reader may not switch.
    const reader = await connectCaps<CapsSession>(t.url, await E(s).share({ facet: 'reader' }));
    await expect(E(reader.root).setModel('demo-fast')).rejects.toThrow(/method_denied/);
    for (const x of [reader, d, c]) await x.close();
  });

  it('agent facts: one per agent in the registry with its readiness; a re-publish changes nothing that did not change', async () => {
    const t = await testHost();
    const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace({ methods: ['observe'] }).uri);
    const seen = collector<FactChange>();
    await E(d.root).observe(
      { type: 'agent' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    const published = await t.host.publishAgents({ timeoutMs: 20_000 });
    await seen.until((xs) => view(xs).length === published.length);
    expect(view(seen.items).find((f) => f.id === 'demo')).toMatchObject({
      type: 'agent',
      host: t.host.refs.hostKey,
      provider: 'demo',
      found: true,
      ready: true,
    });
    // Not installed here (the PATH has no agents): asserted, and not ready.
    expect(view(seen.items).find((f) => f.id === 'hermes')).toMatchObject({ ready: false });
    const changes = seen.items.length;
    await t.host.publishAgents({ timeoutMs: 20_000 });
    // A sentinel after it: pushes arrive in order, so anything the re-publish sent is here by then.
    t.host.dataspace.assert('host', { type: 'agent', id: 'sentinel' });
    await seen.until((xs) => xs.some((x) => x.fact.id === 'sentinel'));
    expect(seen.items.length).toBe(changes + 1);
    await d.close();
  });

  it('heartbeats: a peer that goes silent (no close, no pong) is cut, and the facts it asserted are retracted', async () => {
    const t = await testHost({ ws: { heartbeatMs: 100 } });
    const ref = t.host.mintDataspace().uri;
    const watcher = await connectCaps<CapsDataspace>(t.url, ref);
    const seen = collector<FactChange>();
    await E(watcher.root).observe(
      { type: 'agent' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    const proxy = await partitionableProxy(t.url);
    const far = await connectCaps<CapsDataspace>(proxy.url, ref);
    await E(far.root).assert({ type: 'agent', id: 'behind-the-partition', ready: true });
    await seen.until((xs) => view(xs).some((f) => f.id === 'behind-the-partition'));
    const before = t.host.connections;
    proxy.partition();
    // Nothing closed: only the missed pongs tell the host.
    await seen.until((xs) => !view(xs).some((f) => f.id === 'behind-the-partition'));
    expect(t.host.connections).toBe(before - 1);
    // The watcher (answering its pings) is still there.
    expect(await E(watcher.root).assert({ type: 'agent', id: 'still-here' })).toMatch(/^f/);
    proxy.close();
    await far.close();
    await watcher.close();
  });
});
