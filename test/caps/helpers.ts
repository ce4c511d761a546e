/** A caps host over a real harness (demo agent) in a temp home, served on loopback, plus client helpers. */
import '../../src/caps/lockdown.js';
import { afterFile } from '../file-end.js';
import {
  CapsHost,
  startCapsServer,
  type CapsServer,
  type CapsWsOptions,
  type CapsHostOptions,
  type FactChange,
} from '../../src/caps/index.js';
import { makeHarness, place, type Place } from '../harness/helpers.js';
import type { HarnessOptions } from '../../src/harness/index.js';

export interface TestHost {
  p: Place;
  h: ReturnType<typeof makeHarness>;
  host: CapsHost;
  server: CapsServer;
  url: string;
  /** A launcher reference for the demo agent in the place's user home. */
  launcher: string;
}

const hosts: TestHost[] = [];
afterFile(async () => {
  for (const t of hosts.splice(0)) {
    await t.server.close();
    await t.host.close();
  }
});

export async function testHost(
  o: {
    ws?: CapsWsOptions;
    host?: Omit<CapsHostOptions, 'harness'>;
    harness?: Omit<HarnessOptions, 'env'>;
    vars?: Record<string, string>;
    hermes?: boolean;
  } = {},
): Promise<TestHost> {
  const p = place();
  const h = makeHarness(p, {
    ...(o.vars ? { vars: o.vars } : {}),
    ...(o.hermes ? { hermes: true } : {}),
    warm: false,
    ...o.harness,
  });
  const host = new CapsHost({ harness: h, ...o.host });
  const server = await startCapsServer(host, o.ws ?? {});
  const launcher = host.mintLauncher(p.userHome, { provider: 'demo' }).uri;
  const t = { p, h, host, server, url: server.url, launcher };
  hosts.push(t);
  return t;
}

/** Collects pushed event batches; `until` waits on a condition over what arrived. */
export function collector<T = Record<string, unknown>>(): {
  items: T[];
  batches: number;
  until(pred: (items: T[]) => boolean): Promise<void>;
  onBatch(batch: readonly T[]): void;
} {
  const waiters = new Set<() => void>();
  const c = {
    items: [] as T[],
    batches: 0,
    onBatch(batch: readonly T[]) {
      c.batches++;
      c.items.push(...batch);
      for (const w of [...waiters]) w();
    },
    until(pred: (items: T[]) => boolean): Promise<void> {
      if (pred(c.items)) return Promise.resolve();
      return new Promise((resolve) => {
        const w = (): void => {
          if (pred(c.items)) {
            waiters.delete(w);
            resolve();
          }
        };
        waiters.add(w);
      });
    },
  };
  return c;
}

/** Waits until `pred` holds, checking after each macrotask (no fixed sleeps). */
export async function eventually(pred: () => boolean, what = 'condition', limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** A small seeded PRNG (mulberry32): fuzz and churn runs are reproducible. */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The facts an observer believes in, by handle, from its add/del stream. */
export function factView(changes: readonly FactChange[]): Record<string, unknown>[] {
  const m = new Map<string, Record<string, unknown>>();
  for (const c of changes) {
    if (c.op === 'add') m.set(c.handle, c.fact as Record<string, unknown>);
    else m.delete(c.handle);
  }
  return [...m.values()];
}
