/**
 * Slow is not dead (issue 10): a client still working through its backlog is told to resync when
 * its queue overflows, and only a client that reads nothing for a whole heartbeat is dropped (4002).
 * Real server on loopback, demo agent; the slow client reads at a throttled rate off its own socket.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { describe, it, expect, vi } from 'vitest';
import { applyEvent } from '../../src/server/client/thread.js';
import { contiguous, demoSession, snapOf, type Probe, serve, watching, type Served } from './helpers.js';

vi.setConfig({ testTimeout: 300_000 });

// Each `read big.txt` turn carries one ~3 MB event: a few of them are more than a client's and the
// server's kernel buffers (~4 MB on loopback) plus the 3 MB bound hold.
const READS = 5;
const BOUND = 3 * 1024 * 1024;
const BIG = 'lorem ipsum dolor sit amet\n'.repeat(110_000);

async function session(s: Served): Promise<string> {
  writeFileSync(join(s.p.userHome, 'big.txt'), BIG);
  return demoSession(s);
}

/** The client's own TCP socket: `ws.pause()` stops it, `read(n)` hands `ws` n bytes more. */
const socketOf = (p: Probe) => (p.ws as unknown as { _socket: Socket })._socket;

/** Reads `bytes` off a paused probe's socket every `everyMs` (a reader on a slow link). */
function throttle(p: Probe, bytes: number, everyMs: number): () => void {
  const sock = socketOf(p);
  const timer = setInterval(() => {
    const n = Math.min(bytes, sock.readableLength);
    // read(0) asks the socket to fill its buffer from the kernel; read(n) emits `data` to `ws`.
    sock.read(n > 0 ? n : 0);
  }, everyMs);
  return () => clearInterval(timer);
}

async function turnsEnded(fast: Probe, id: string, n: number): Promise<void> {
  await fast.wait(() => fast.events(id).filter((e) => e.type === 'turn.ended').length >= n);
}

describe.concurrent('/ws: slow is not dead', () => {
  it('a paused-then-slow reader is told to resync (not dropped), a fast one keeps up with no gap, one that reads nothing is dropped (4002)', async () => {
    // Generous for a loaded machine. The server sees a reader's progress in steps (the kernel takes
    // bytes in chunks of its buffer, a pong comes after a whole frame): the reader gets ~3 MB per beat.
    // Without the fix it cannot answer a ping within two beats: the ping waits behind ~8 MB.
    const beatMs = 3000;
    const s = await serve({
      vars: { TALARIA_DEMO_MAX_READ_BYTES: '20000000' },
      maxBufferedBytes: BOUND,
      heartbeatMs: beatMs,
    });
    const id = await session(s);
    const fast = await watching(s.server, id);
    const slow = await watching(s.server, id);
    const deaf = await watching(s.server, id);
    const base = snapOf(fast.messages.find((m) => m.type === 'snapshot'))!;
    slow.ws.pause();
    deaf.ws.pause();
    for (let i = 0; i < READS; i++) await s.client.api.prompt({ params: { id }, body: { text: 'read big.txt' } });
    // Paused while the first big event goes out (its buffers fill), then slow (~1 MB/s).
    await fast.wait((m) => m.type === 'event' && JSON.stringify(m.event).length > 1024 * 1024);
    const stop = throttle(slow, 20 * 1024, 20);
    const resync = await slow.wait((m) => m.type === 'resync');
    stop();
    slow.ws.resume();
    expect(resync).toMatchObject({ sessionId: id, reason: 'overflow' });
    // The deaf client read nothing for a beat: the server dropped it (the fast and slow ones stay).
    await vi.waitFor(() => expect(s.server.connections()).toBe(2), { timeout: 60_000, interval: 50 });
    deaf.ws.resume();
    // It reads what got through and then the close: 4002, or 1006 when the reset came first.
    expect([4002, 1006]).toContain(await deaf.closed);

    await turnsEnded(fast, id, READS);
    expect(fast.messages.some((m) => m.type === 'resync')).toBe(false);
    contiguous(fast.events(id), base.seq + 1);
    const had = slow.events(id);
    contiguous(had, base.seq + 1);
    expect(had.length).toBeLessThan(fast.events(id).length);

    // Resumed with `since`: the rest of the log (or a fresh snapshot), then live to the turn's end.
    const last = had.at(-1)!.seq;
    const before = slow.messages.length;
    slow.send({ type: 'subscribe', sessionId: id, since: last });
    await slow.next((m) => m.type === 'synced' && m.sessionId === id);
    const end = fast.events(id).at(-1)!.seq;
    await slow.wait(() => (slow.events(id).at(-1)?.seq ?? 0) >= end);
    const after = slow.messages.slice(before);
    const fresh = snapOf(after.find((m) => m.type === 'snapshot'));
    const thread = fresh ?? base;
    const tail = after.flatMap((m) => (m.type === 'event' && m.event.sessionId === id ? [m.event] : []));
    if (!fresh) {
      contiguous([...had, ...tail], base.seq + 1);
      for (const e of had) applyEvent(thread, e);
    } else contiguous(tail, fresh.seq + 1);
    for (const e of tail) applyEvent(thread, e);
    s.server.hub.get(id)!.hs.flush();
    expect(JSON.parse(JSON.stringify(thread.thread.entries))).toEqual(
      JSON.parse(JSON.stringify(s.harness.store.entries.list(id))),
    );
    expect(slow.ws.readyState).toBe(slow.ws.OPEN);
    fast.close();
    slow.close();
  });

  it('a client that stops reading mid-flood is dropped (4002) within a few beats, though the server still writes to it', async () => {
    const beatMs = 1500;
    const s = await serve({
      vars: { TALARIA_DEMO_MAX_READ_BYTES: '20000000' },
      maxBufferedBytes: BOUND,
      heartbeatMs: beatMs,
    });
    const id = await session(s);
    const fast = await watching(s.server, id);
    const deaf = await watching(s.server, id);
    for (let i = 0; i < READS; i++) await s.client.api.prompt({ params: { id }, body: { text: 'read big.txt' } });
    // It read the first turn, then nothing: what follows fills its buffers and waits in the server.
    await turnsEnded(deaf, id, 1);
    deaf.ws.pause();
    await vi.waitFor(() => expect(s.server.connections()).toBe(1), { timeout: 60_000, interval: 50 });
    deaf.ws.resume();
    expect([4002, 1006]).toContain(await deaf.closed);
    await turnsEnded(fast, id, READS);
    contiguous(fast.events(id), fast.events(id)[0]!.seq);
    expect(fast.ws.readyState).toBe(fast.ws.OPEN);
    fast.close();
  });
});
