/**
 * `talaria.fleet.forward` (issue 39 item 3): what forwarding a prompt to the session's owner host
 * adds. Two `talaria serve` hosts (the build, demo agent, no chunk delay) on one throwaway local
 * PostgreSQL cluster; a session live on B. A prompt's round trip — POST until the client of the
 * host it was sent to sees the turn's `turn.ended` — sent to B directly and to A (forwarded to B
 * over B's `/captp`, the events back over it), in pairs (direct, forwarded, forwarded, direct…) so
 * a pair shares the machine's load. Zero lost: B's stored wire frames are seq 1..N.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { mintJoinToken } from '../src/fleet/join.js';
import { openStore } from '../src/store/index.js';
import { ROOT } from './flood-driver.js';
import { pgBin, startCluster } from './pg-cluster.js';
import { percentile } from './stats.js';
import { ensureFreshBuild } from './talaria-cli.js';
import type { NotMeasured, Sample } from './types.js';

const BIN = join(ROOT, 'bin', 'talaria.js');

interface Host {
  origin: string;
  token: string;
  child: ChildProcess;
}

/** A join token minted into the fleet's store (as `talaria fleet token`): both hosts join with it. */
function joinToken(url: string): string {
  const store = openStore({ url });
  try {
    return mintJoinToken(store, { ttlMs: 3_600_000 }).token;
  } finally {
    store.close();
  }
}

function serve(dir: string, name: string, url: string, token: string): Promise<Host> {
  const home = join(dir, name);
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
    cwd: dir,
    env: {
      ...process.env,
      TALARIA_HOME: join(home, 'talaria'),
      TALARIA_DEMO_HOME: home,
      TALARIA_STORE: url,
      TALARIA_FLEET_JOIN: token,
      TALARIA_DEMO_CHUNK_DELAY_MS: '0',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve ${name} exited (${code}) before it was ready:\n${out}`)));
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(out);
      if (m && /fleet: host /.test(out)) resolve({ origin: m[1]!, token: m[2]!, child });
    });
    child.stderr!.resume();
  });
}

async function api<T>(h: Host, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${h.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<T>;
}

/** A `/ws` client of `h` subscribed to `sid`: when each turn's `turn.ended` arrived. */
async function endings(h: Host, sid: string): Promise<{ ended(turnId: string): Promise<number>; close(): void }> {
  const ws = new WebSocket(`${h.origin.replace(/^http/, 'ws')}/ws`, ['talaria', `talaria.token.${h.token}`]);
  const at = new Map<string, number>();
  const waiting = new Map<string, (t: number) => void>();
  let synced: () => void;
  const ready = new Promise<void>((r) => (synced = r));
  ws.on('message', (d) => {
    const t = performance.now();
    const m = JSON.parse(String(d)) as { type: string; events?: { type: string; turnId?: string }[] };
    if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'subscribe', sessionId: sid }));
    if (m.type === 'synced') synced();
    for (const e of m.events ?? []) {
      if (e.type !== 'turn.ended' || !e.turnId) continue;
      at.set(e.turnId, t);
      waiting.get(e.turnId)?.(t);
    }
  });
  await ready;
  return {
    ended: (turnId) => {
      const t = at.get(turnId);
      return t !== undefined ? Promise.resolve(t) : new Promise((r) => waiting.set(turnId, r));
    },
    close: () => ws.close(),
  };
}

export async function runFleetForward(o: { prompts: number }): Promise<Sample | NotMeasured> {
  if (!pgBin())
    return { notMeasured: 'PostgreSQL is not installed (Debian: apt-get install postgresql)', reason: 'skipped' };
  const note = await ensureFreshBuild();
  const cluster = startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-fleet-'));
  const hosts: Host[] = [];
  try {
    cluster.sql('CREATE DATABASE fwd');
    const url = cluster.urlOf('fwd');
    const token = joinToken(url);
    const [a, b] = await Promise.all([serve(dir, 'a', url, token), serve(dir, 'b', url, token)]);
    hosts.push(a, b);
    const { workspace } = await api<{ workspace: { id: string } }>(b, 'POST', '/api/workspaces', { path: dir });
    const made = await api<{ snapshot: { session: { id: string } } }>(
      b,
      'POST',
      `/api/workspaces/${workspace.id}/sessions`,
      { provider: 'demo' },
    );
    const sid = made.snapshot.session.id;
    const [onA, onB] = await Promise.all([endings(a, sid), endings(b, sid)]);
    const round = async (h: Host, on: typeof onA): Promise<number> => {
      const t0 = performance.now();
      const { id } = await api<{ id: string }>(h, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello' });
      return (await on.ended(id)) - t0;
    };
    // The first of each pays for connections and pairing: not counted.
    await round(b, onB);
    await round(a, onA);
    const direct: number[] = [];
    const forwarded: number[] = [];
    for (let i = 0; i < o.prompts; i++) {
      if (i % 2 === 0) {
        direct.push(await round(b, onB));
        forwarded.push(await round(a, onA));
      } else {
        forwarded.push(await round(a, onA));
        direct.push(await round(b, onB));
      }
    }
    onA.close();
    onB.close();
    const wire = await api<{ frames: { seq: number }[] }>(b, 'GET', `/api/sessions/${sid}/wire?limit=5000`);
    const gaps = wire.frames.filter((f, i) => f.seq !== i + 1).length;
    const d50 = percentile(direct, 50);
    const f50 = percentile(forwarded, 50);
    return {
      values: {
        directMs: d50,
        forwardMs: f50,
        directP99Ms: percentile(direct, 99),
        forwardP99Ms: percentile(forwarded, 99),
        addedMs: f50 - d50,
        forwardRatio: f50 / d50,
        lost: gaps,
      },
      notes: [`${o.prompts} prompts each way, ${wire.frames.length} wire frames stored on B`, ...(note ? [note] : [])],
    };
  } finally {
    for (const h of hosts) h.child.kill('SIGTERM');
    await Promise.all(
      hosts.map((h) => new Promise((r) => (h.child.exitCode !== null ? r(0) : h.child.once('exit', r)))),
    );
    cluster.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
