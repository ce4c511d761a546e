/**
 * The caps face's figures (issue 12), in one locked-down process (run isolated: lockdown must not
 * reach the other cases): CapTP round trip over a WebSocket vs an NDJSON JSON-RPC echo over a
 * loopback socket in the same run; facts pushed to a remote sink per second; dataspace
 * assert+retract per second with 100 observers (indexed); heap growth over 50,000 calls that each
 * return a fresh remote object (imports collected).
 */
import '../src/caps/lockdown.js';
import harden from '@endo/harden';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  CapsHost,
  connectCaps,
  Dataspace,
  E,
  makeFactObserver,
  startCapsServer,
  type CapsDataspace,
  type CapsLauncher,
} from '../src/caps/index.js';
import { createHarness } from '../src/harness/index.js';
import { currentEnv } from '../src/providers/locate.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function ndjsonEchoRttUs(n: number): Promise<number> {
  const server = createServer((s) => {
    createInterface({ input: s }).on('line', (l) => {
      const m = JSON.parse(l) as { id: number; params: unknown };
      s.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.params }) + '\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const sock: Socket = connect(port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const lines = createInterface({ input: sock });
  let waiting: (() => void) | undefined;
  lines.on('line', () => waiting?.());
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await new Promise<void>((r) => {
      waiting = r;
      sock.write(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'echo', params: { i } }) + '\n');
    });
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  sock.destroy();
  server.close();
  return median(times);
}

export async function runCaps(o: { quick: boolean }): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-caps-'));
  const h = createHarness({
    env: currentEnv({
      env: { PATH: process.env.PATH ?? '', HOME: dir, TALARIA_HOME: dir, TALARIA_DEMO_HOME: dir },
      homeDir: dir,
    }),
    warm: false,
  });
  const host = new CapsHost({ harness: h, quotas: { maxFacts: 1_000_000, assertsPerSecond: 1e9 } });
  const server = await startCapsServer(host, { messagesPerSecond: 1e9 });
  try {
    const calls = o.quick ? 300 : 3_000;
    const echoUs = await ndjsonEchoRttUs(calls);
    const c = await connectCaps<CapsLauncher>(server.url, host.mintLauncher(dir, { provider: 'demo' }).uri);
    const launcher = await c.root;
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t0 = process.hrtime.bigint();
      await E(launcher).info();
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    const capsUs = median(times);

    // Pushed updates: the host asserts facts; a remote observer receives them in batches.
    const d = await connectCaps<CapsDataspace>(server.url, host.mintDataspace().uri);
    const pushes = o.quick ? 2_000 : 20_000;
    let got = 0;
    let done: () => void = () => {};
    const all = new Promise<void>((r) => (done = r));
    await E(d.root).observe(
      { type: 'tick' },
      makeFactObserver((b) => ((got += b.length), got >= pushes && done())),
    );
    const p0 = process.hrtime.bigint();
    for (let i = 0; i < pushes; i++) host.dataspace.assert('host', harden({ type: 'tick', i }));
    await all;
    const pushedPerS = pushes / (Number(process.hrtime.bigint() - p0) / 1e9);

    // Dataspace churn, 100 observers (one wildcard, 99 on distinct ids), in-process.
    const ds = new Dataspace();
    let seen = 0;
    const cb = { added: () => void seen++, removed: () => void seen++ };
    ds.observe({}, cb);
    for (let i = 0; i < 99; i++) ds.observe({ id: `s${i}` }, cb);
    const churn = o.quick ? 5_000 : 50_000;
    const c0 = process.hrtime.bigint();
    for (let i = 0; i < churn; i++)
      ds.retract('c', ds.assert('c', { type: 'session', id: `s${i % 150}`, status: 'idle' }));
    const churnPerS = churn / (Number(process.hrtime.bigint() - c0) / 1e9);

    // Memory over 50,000 calls returning fresh remote objects. The heap is sampled after a full
    // collection every 5,000 calls, as a long-running server collects: without those, 40,000 calls'
    // garbage piles up before the first major GC and the weak tables of harden / passStyleOf keep
    // that high-water capacity (V8 never shrinks them), which reads as ~50 MB of growth while the
    // objects alive stay flat. `liveExports` is the count-based figure: objects the host exported
    // that were not collected yet (a leak shows there as one per call).
    const gc = (globalThis as { gc?: () => void }).gc;
    const dropsNow = (): number => host.connectionList().reduce((n, x) => n + (x.stats().gc.DROPPED ?? 0), 0);
    // Finalizers run after a collection, on later turns: let them (and the CTP_DROPs they send) go through.
    const heap = async (): Promise<number> => {
      let last = -1;
      for (let i = 0; i < 50; i++) {
        gc?.();
        await new Promise((r) => setTimeout(r, 20));
        const drops = dropsNow();
        if (i >= 4 && drops === last) break;
        last = drops;
      }
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    const memCalls = o.quick ? 5_000 : 50_000;
    const step = memCalls / 10;
    const again = host.mintLauncher(dir).uri;
    const batch = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i += 250)
        await Promise.all(Array.from({ length: 250 }, () => E(c.bootstrap).fetch(again)));
    };
    const samples: number[] = [];
    for (let k = 0; k < 10; k++) {
      await batch(step);
      samples.push(await heap());
    }
    const before = samples[1]!;
    const after = Math.max(...samples.slice(2));
    const liveExports = host
      .connectionList()
      .reduce((n, x) => n + x.stats().exports.made - x.stats().exports.collected, 0);
    const hostDropped = dropsNow();
    await d.close();
    await c.close();
    return {
      echoUs,
      capsUs,
      rttRatio: capsUs / echoUs,
      pushedPerS,
      churnPerS,
      memGrowthMb: (after - before) / 1024 / 1024,
      liveExports,
      hostDropped,
    };
  } finally {
    await server.close();
    await host.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
