import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { WebSocket } from 'ws';
import { connectCaps, E, type CapsLauncher } from '../../src/caps/index.js';
import { eventually, rng, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 300_000 });

// CTP_DISCONNECT / CTP_ABORT end the connection (tested on their own below), so the stream leaves them out.
const TYPES = [
  'CTP_CALL',
  'CTP_BOOTSTRAP',
  'CTP_RESOLVE',
  'CTP_RETURN',
  'CTP_DROP',
  'CTP_TRAP_ITERATE',
  'CTP_NOPE',
  '',
];
const METHODS = [
  'prompt',
  'cancel',
  'fetch',
  'info',
  'share',
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  '__getMethodNames__',
];

function malformed(r: () => number, i: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const junk = (): unknown =>
    pick([
      null,
      42,
      -1,
      'x'.repeat(Math.floor(r() * 50)),
      [],
      {},
      { body: '{' },
      { body: '["prompt",["evil"]]', slots: ['o+1', 'p-7'] },
      true,
      1e308,
    ]);
  switch (i % 6) {
    case 0:
      return pick(['', '{', 'null', '[]', '"str"', '{"type":5}', '{"type":"CTP_CALL"', '\u0000\u0001', '1e999']);
    case 1:
      return JSON.stringify({ type: pick(TYPES), epoch: junk(), questionID: junk(), target: junk(), method: junk() });
    case 2:
      // Calls on export ids that exist on *another* connection (o+1…o+9): nothing may be reachable here.
      return JSON.stringify({
        type: 'CTP_CALL',
        epoch: 0,
        questionID: `q-${i}`,
        target: `o+${1 + Math.floor(r() * 9)}`,
        method: { body: JSON.stringify([pick(METHODS), [pick(['evil', 42, null])]]), slots: [] },
      });
    case 3:
      return JSON.stringify({
        type: 'CTP_CALL',
        epoch: 0,
        questionID: `q-${i}`,
        target: 'o+0',
        method: { body: JSON.stringify([pick(METHODS), [junk()]]), slots: [pick(['o-1', 'p+2', 'x', ''])] },
      });
    case 4:
      return JSON.stringify({
        type: 'CTP_DROP',
        slotID: pick(['o+0', 'o+1', 'o-3', junk()]),
        decRefs: junk(),
        epoch: 0,
      });
    default:
      return JSON.stringify({
        type: 'CTP_RESOLVE',
        answerID: pick(['q-1', 'q-999', junk()]),
        res: junk(),
        rej: junk(),
        epoch: 0,
      });
  }
}

function openSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

describe('the wire: fuzz, frames, rate', () => {
  it('20,000 malformed messages: no crash, no unhandled rejection, nothing reachable that this connection was not given', async () => {
    const t = await testHost({ ws: { messagesPerSecond: 1e9 } });
    // Connection A holds real objects (a session, exported on A's connection).
    const a = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const session = await E(a.root).newSession();
    const id = (await E(session).info()).id;
    const ws = await openSocket(t.url);
    const answers: string[] = [];
    ws.on('message', (d) => answers.push(String(d)));
    const r = rng(12);
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      ws.send(malformed(r, i));
      if (i % 500 === 499) await new Promise((res) => setImmediate(res));
    }
    // The host answered or dropped every message and is still serving this very socket.
    ws.send(JSON.stringify({ type: 'CTP_BOOTSTRAP', epoch: 0, questionID: 'q-last' }));
    await eventually(() => answers.some((s) => s.includes('"q-last"')), 'the bootstrap answer after the fuzz', 60_000);
    const conn = t.host.connectionList().find((c) => c.malformed > 0);
    expect(conn!.malformed).toBeGreaterThan(N / 6);
    // Nothing of A's was reached: its session ran no turn and its objects still work for A.
    expect(t.h.store.turns.list(id)).toEqual([]);
    expect(answers.join('\n')).not.toMatch(/"stopReason"/);
    expect((await E(session).info()).id).toBe(id);
    // A fresh client is served normally.
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    expect(await E(c.root).info()).toMatchObject({ provider: 'demo' });
    // A peer's CTP_DISCONNECT ends its connection (socket closed), and only its own.
    const closed = new Promise<number>((res) => ws.once('close', (code) => res(code)));
    ws.send(JSON.stringify({ type: 'CTP_DISCONNECT', epoch: 0, reason: { body: '"bye"', slots: [] } }));
    expect(await closed).toBe(1000);
    expect(await E(c.root).info()).toMatchObject({ provider: 'demo' });
    await c.close();
    await a.close();
  });

  it('an oversized frame closes that socket (1009); a flood over the message rate closes it (1008); the host serves others', async () => {
    const t = await testHost({ ws: { maxPayload: 64 * 1024, messagesPerSecond: 200 } });
    const big = await openSocket(t.url);
    const bigClosed = new Promise<number>((res) => big.once('close', (code) => res(code)));
    big.send('x'.repeat(64 * 1024 + 1));
    expect(await bigClosed).toBe(1009);
    const flood = await openSocket(t.url);
    const floodClosed = new Promise<number>((res) => flood.once('close', (code) => res(code)));
    for (let i = 0; i < 1_000; i++) flood.send('{}');
    expect(await floodClosed).toBe(1008);
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    expect(await E(c.root).info()).toMatchObject({ provider: 'demo' });
    await eventually(() => t.host.connections === 1, 'closed sockets to leave the host');
    await c.close();
  });
});
