/**
 * The lockdown question (issue 12): the caps face locks the process down (SES), and `talaria
 * serve` runs the harness in the same process. Everything else must keep working after a *late*
 * lockdown — the order a server sees: SQLite, the ACP SDK, zod, Hono and ws are loaded first, then
 * the caps face is imported. If this failed the caps face would have to run in a worker.
 */
import { describe, it, expect, vi } from 'vitest';
import { once } from 'node:events';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { checkEvent, type SessionEvent } from '../../src/session/events.js';
import { makeHarness, place } from '../harness/helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe('SES lockdown in the same process as the rest of Talaria', () => {
  it('after a late lockdown: better-sqlite3, the ACP SDK (demo agent over a real pipe), zod, Hono and ws all work', async () => {
    expect(Object.isFrozen(Array.prototype)).toBe(false);
    await import('../../src/caps/lockdown.js');
    expect(Object.isFrozen(Array.prototype)).toBe(true);
    expect(typeof (globalThis as { harden?: unknown }).harden).toBe('function');

    // SQLite + ACP SDK + zod: a recorded session with the demo agent, every event valid.
    const p = place();
    const h = makeHarness(p, { warm: false });
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    const events: SessionEvent[] = [];
    s.subscribe((e) => events.push(e));
    expect((await s.prompt('hello there').result).stopReason).toBe('end_turn');
    expect(events.length).toBeGreaterThan(3);
    for (const e of events) expect(checkEvent(e)).toBeNull();
    expect(h.store.turns.list(s.id)).toHaveLength(1);
    expect(z.object({ a: z.string() }).safeParse({ a: 1 }).success).toBe(false);
    await h.close();

    // Hono over @hono/node-server, and ws, on loopback.
    const app = new Hono().get('/x', (c) => c.json({ ok: true }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    expect(await (await fetch(`http://127.0.0.1:${port}/x`)).json()).toEqual({ ok: true });
    const wss = new WebSocketServer({ server: server as never });
    wss.on('connection', (ws) => ws.on('message', (d) => ws.send(`echo ${String(d)}`)));
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    await once(ws, 'open');
    ws.send('hi');
    const [reply] = (await once(ws, 'message')) as [Buffer];
    expect(String(reply)).toBe('echo hi');
    ws.close();
    wss.close();
    await new Promise<void>((res) => server.close(() => res()));
  });
});
