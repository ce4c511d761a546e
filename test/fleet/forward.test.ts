/**
 * Control goes to the owner (issue 39 item 3, docs/fleet.md §3), with real parts: two `talaria
 * serve` hosts on loopback sharing one throwaway PostgreSQL. A session live on B is owned by B (its
 * writer lease names B's fleet host); A never takes it over while B is online.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSyncPg, type SyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { contiguous, isEvent, Probe, type Seen } from '../server/helpers.js';
import type { RunningServer } from '../../src/server/server.js';
import { WebSocket } from 'ws';
import { hostIdentity } from '../../src/fleet/identity.js';
import { tempDir } from '../cli/helpers.js';
import { FleetHosts, type FleetHost as Host } from './fleet-serve.js';
import { pairRequest } from '../../src/fleet/pair.js';
import { PEER_REF_HEADER, type StreamEvent } from '../../src/server/contract/index.js';

let cluster: Cluster;
let db: SyncPg;
let url: string;
const fleet = new FleetHosts();

/** A lease of 3 s: nothing here waits for one to run out. */
const host = (name: string, env: Record<string, string> = {}): Promise<Host> =>
  fleet.start(url, `fwd-${name}`, { env: { TALARIA_FLEET_LEASE_MS: '3000', ...env } });

async function api(h: Host, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${h.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** A new session live on `h`, in its home folder. */
async function liveSession(h: Host): Promise<string> {
  const w = await api(h, 'POST', '/api/workspaces', { path: h.home });
  expect(w.status).toBe(200);
  const s = await api(h, 'POST', `/api/workspaces/${w.json.workspace?.id ?? w.json.id}/sessions`, { provider: 'demo' });
  expect(s.status).toBe(200);
  return s.json.snapshot.session.id as string;
}

let a: Host;
let b: Host;
/** A host that does not forward (TALARIA_FLEET_FORWARD=0): it refuses instead. */
let c: Host;

beforeAll(async () => {
  cluster = startCluster();
  const admin = openSyncPg(cluster.url);
  admin.query('CREATE DATABASE fwd');
  admin.close();
  url = cluster.url.replace('/postgres?', '/fwd?');
  // B's demo agent streams slowly enough for a cancel to land mid-turn.
  [a, b, c] = await Promise.all([
    host('a'),
    host('b', { TALARIA_DEMO_CHUNK_DELAY_MS: '20' }),
    host('c', { TALARIA_FLEET_FORWARD: '0' }),
  ]);
  db = openSyncPg(url);
}, 60_000);

afterAll(async () => {
  try {
    db?.close();
    await fleet.stop();
  } finally {
    cluster?.destroy();
  }
});

/** A `/ws` client of host `h`, subscribed to `sid` and caught up. */
async function watch(h: Host, sid: string): Promise<Probe> {
  const p = new Probe({ origin: h.origin, token: h.token } as RunningServer);
  await p.wait((m) => m.type === 'welcome');
  p.send({ type: 'subscribe', sessionId: sid });
  await p.wait((m) => m.type === 'synced' && m.sessionId === sid);
  return p;
}

const leaseHost = (sid: string) =>
  (db.query('SELECT host FROM session_leases WHERE session_id = $1', [sid]).rows[0] as { host: string }).host;

/** The turn's events as a client sees them: type and seq (the owner's). */
const turnOf = (events: StreamEvent[], turnId: string) => {
  const from = events.findIndex((e) => e.type === 'turn.started' && (e as { turnId?: string }).turnId === turnId);
  const to = events.findIndex((e) => e.type === 'turn.ended' && (e as { turnId?: string }).turnId === turnId);
  return events.slice(from, to + 1).map((e) => `${e.seq} ${e.type}`);
};

const ended = (sid: string, turnId: string) => (m: Seen) =>
  isEvent(sid, 'turn.ended')(m) && (m as { event: { turnId?: string } }).event.turnId === turnId;

describe('a session live on host B, driven from host A', () => {
  it('a host that does not forward refuses (session_owned_elsewhere, 409, naming B) and never takes it over', async () => {
    const sid = await liveSession(b);
    expect(leaseHost(sid)).toBe(b.id);
    for (const [path, body] of [
      [`/api/sessions/${sid}/open`, {}],
      [`/api/sessions/${sid}/prompt`, { text: 'hello' }],
      [`/api/sessions/${sid}/cancel`, {}],
    ] as const) {
      const r = await api(c, 'POST', path, body);
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ code: 'busy' });
      expect(r.json.message).toContain(`live on host ${b.name}`);
    }
    expect(leaseHost(sid)).toBe(b.id);
    expect((await api(b, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello' })).status).toBe(200);
  });

  it('prompt, permission answer, steer and cancel from A run on B; A’s /ws gets B’s events with B’s seqs; no frame lost', async () => {
    const sid = await liveSession(b);
    const onA = await watch(a, sid);
    const onB = await watch(b, sid);

    // A prompt typed on A: the turn runs on B, A's client sees it as B's does.
    const p1 = await api(a, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello from a' });
    expect(p1.status).toBe(200);
    const t1 = p1.json.id as string;
    await onA.wait(ended(sid, t1));
    await onB.wait(ended(sid, t1));
    expect(turnOf(onA.events(sid), t1)).toEqual(turnOf(onB.events(sid), t1));
    expect(turnOf(onA.events(sid), t1).length).toBeGreaterThan(3);
    expect(leaseHost(sid)).toBe(b.id);

    // A permission asked on B, answered from A; the owner's broker refuses the second answer, from either host.
    const p2 = await api(a, 'POST', `/api/sessions/${sid}/prompt`, { text: 'run echo hi' });
    expect(p2.status).toBe(200);
    const asked = await onA.wait<
      Seen & { event: { requestKey: string; options: { optionId: string; kind: string }[] } }
    >(isEvent(sid, 'permission.asked'));
    const key = asked.event.requestKey;
    expect(
      (await api(a, 'GET', `/api/sessions/${sid}/permissions`)).json.pending.map(
        (x: { requestKey: string }) => x.requestKey,
      ),
    ).toEqual([key]);
    const allow = asked.event.options.find((o) => o.kind === 'allow_once')!.optionId;
    const first = await api(a, 'POST', `/api/sessions/${sid}/permissions/${key}`, { optionId: allow });
    expect(first.status).toBe(200);
    const again = await api(b, 'POST', `/api/sessions/${sid}/permissions/${key}`, { optionId: allow });
    expect(again.status).toBe(409);
    const remoteAgain = await api(a, 'POST', `/api/sessions/${sid}/permissions/${key}`, { optionId: allow });
    expect(remoteAgain.status).toBe(409);
    expect(remoteAgain.json.message).toContain('already answered');
    await onA.wait(isEvent(sid, 'permission.resolved'));
    await onA.wait(ended(sid, p2.json.id as string));

    // A steer from A of the idle session: B's server steers it (here: a prompt now), the turn runs on B.
    const st = await api(a, 'POST', `/api/sessions/${sid}/steer`, { text: 'steered from a' });
    expect(st.status).toBe(200);
    expect(st.json).toMatchObject({ how: 'prompt', turnId: expect.any(String) });
    await onA.wait(ended(sid, st.json.turnId as string));

    // Cancel from A of a turn running on B.
    const p3 = await api(a, 'POST', `/api/sessions/${sid}/prompt`, { text: 'tour' });
    await onA.wait(isEvent(sid, 'entry.appended'));
    expect((await api(a, 'POST', `/api/sessions/${sid}/cancel`, {})).status).toBe(200);
    const end = await onA.wait<Seen & { event: { stopReason: string } }>(ended(sid, p3.json.id as string));
    expect(end.event.stopReason).toBe('cancelled');

    // Every event B sent reached A, in order, no gap; every wire frame B stored is there, seq 1..N.
    await onB.wait(ended(sid, p3.json.id as string));
    const seqsA = onA.events(sid).map((e) => e.seq);
    const firstA = seqsA[0]!;
    contiguous(onA.events(sid), firstA);
    expect(
      onB
        .events(sid)
        .filter((e) => e.seq >= firstA)
        .map((e) => e.seq),
    ).toEqual(seqsA);
    const wire = await api(b, 'GET', `/api/sessions/${sid}/wire?limit=5000`);
    const seqs = (wire.json.frames as { seq: number }[]).map((f) => f.seq);
    expect(seqs.length).toBeGreaterThan(10);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    onA.close();
    onB.close();
  });

  it('a prompt with images larger than a token holder’s 1 MiB frame is forwarded whole; its events come back', async () => {
    const sid = await liveSession(b);
    const onA = await watch(a, sid);
    // 1.5 MB of base64: over the caps face's 1 MiB frame, under an HTTP body's 32 MiB.
    const data = Buffer.alloc(1_100_000, 7).toString('base64');
    const r = await api(a, 'POST', `/api/sessions/${sid}/prompt`, {
      text: 'what is in this picture',
      images: [{ mimeType: 'image/png', data }],
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    await onA.wait(ended(sid, r.json.id as string));
    // On B, the owner: the user message holds the image as sent.
    const snap = await api(b, 'GET', `/api/sessions/${sid}`);
    const user = (snap.json.snapshot.thread.entries as { kind: string; blocks?: { type: string; data?: string }[] }[])
      .filter((e) => e.kind === 'user_message')
      .at(-1)!;
    expect(user.blocks?.find((c) => c.type === 'image')?.data).toBe(data);
    // And on A, as its client folded it from B's events.
    const onAEntry = onA
      .events(sid)
      .map((e) => (e as { entry?: { kind?: string; blocks?: { type: string; data?: string }[] } }).entry)
      .filter((e) => e?.kind === 'user_message')
      .at(-1);
    expect(onAEntry?.blocks?.find((c) => c.type === 'image')?.data).toBe(data);
  });

  it('a prompt under the HTTP body limit but over a peer socket’s frame is refused with 413, and the link to B lives on', async () => {
    const sid = await liveSession(b);
    const onA = await watch(a, sid);
    // 12 M quotes: 24 MB of body (under 32 MiB), ~48 MB as a CapTP frame (over 40 MiB).
    const quotes = '"'.repeat(12_000_000);
    const r = await api(a, 'POST', `/api/sessions/${sid}/prompt`, { text: quotes });
    expect([r.status, r.json.code], JSON.stringify(r.json).slice(0, 300)).toEqual([413, 'too_large']);
    expect(r.json.message).toMatch(/frame/);
    const st = await api(a, 'POST', `/api/sessions/${sid}/steer`, { text: quotes });
    expect([st.status, st.json.code], JSON.stringify(st.json).slice(0, 300)).toEqual([413, 'too_large']);
    // Nothing reached B, and the same link still carries the next prompt.
    const next = await api(a, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello again' });
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    await onA.wait(ended(sid, next.json.id as string));
    const snap = await api(b, 'GET', `/api/sessions/${sid}`);
    const users = (snap.json.snapshot.thread.entries as { kind: string }[]).filter((e) => e.kind === 'user_message');
    expect(users).toHaveLength(1);
    onA.close();
  });

  it('model and mode picked on A are set on B; A’s page hears the catalog change; a host that does not forward refuses', async () => {
    const sid = await liveSession(b);
    const onA = await watch(a, sid);
    const catalogOf = (h: Host) =>
      api(h, 'GET', `/api/sessions/${sid}`).then(
        (r) => r.json.snapshot.catalog as { model?: { currentId?: string }; mode?: { currentId?: string } },
      );
    expect((await catalogOf(b)).model?.currentId).toBe('demo-fast');
    const m = await api(a, 'PUT', `/api/sessions/${sid}/model`, { modelId: 'demo-thorough' });
    expect(m.status, JSON.stringify(m.json)).toBe(200);
    expect((await catalogOf(b)).model?.currentId).toBe('demo-thorough');
    await onA.wait(
      (e) =>
        isEvent(sid, 'catalog.updated')(e) &&
        (e as { event: { catalog: { model?: { currentId?: string } } } }).event.catalog.model?.currentId ===
          'demo-thorough',
    );
    // And the session's choice, as every client of B's stream and B's list see it.
    await onA.wait(
      (e) =>
        isEvent(sid, 'choice.updated')(e) && (e as { event: { modelId?: string } }).event.modelId === 'demo-thorough',
    );
    const listed = await api(b, 'GET', '/api/sessions');
    expect((listed.json.sessions as { id: string; modelId?: string }[]).find((x) => x.id === sid)?.modelId).toBe(
      'demo-thorough',
    );
    const mode = await api(a, 'PUT', `/api/sessions/${sid}/mode`, { modeId: 'auto' });
    expect(mode.status, JSON.stringify(mode.json)).toBe(200);
    expect((await catalogOf(b)).mode?.currentId).toBe('auto');
    await onA.wait(
      (e) => isEvent(sid, 'choice.updated')(e) && (e as { event: { modeId?: string } }).event.modeId === 'auto',
    );
    // The session stayed B's.
    expect(leaseHost(sid)).toBe(b.id);
    const refused = await api(c, 'PUT', `/api/sessions/${sid}/model`, { modelId: 'demo-fast' });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toContain(`live on host ${b.name}`);
  });

  it('/captp takes a peer host only with the reference minted for it; a token reaches it only with --caps', async () => {
    const status = (h: Host, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${h.origin.replace(/^http/, 'ws')}/captp`, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', reject);
      });
    expect(await status(b, {})).toBe(401);
    expect(await status(b, { [PEER_REF_HEADER]: 'ocapn://x.talaria/s/forged' })).toBe(401);
    expect(await status(b, { authorization: `Bearer ${b.token}` })).toBe(404);
    const pair = await fetch(`${b.origin}/fleet/pair`, { method: 'POST', body: '{"from":"h_x"}' });
    expect(pair.status).toBe(403);
    expect(((await pair.json()) as { message: string }).message).toMatch(/pair refused/);
  });

  it('revoking a host revokes the references B minted for it and cuts its /captp connection at once', async () => {
    const sid = await liveSession(b);
    // The peer is this test, as a host of its own: a row with its key, as a member registers.
    const t = hostIdentity(tempDir('fwd-t'), { name: 'box-t' });
    const now = Date.now();
    db.query(
      `INSERT INTO fleet_hosts (id, name, url, public_key, agents, load, started_at, heartbeat_at, lease_until)
       VALUES ($1, $2, NULL, $3, '[]', '{}', $4, $4, $5)`,
      [t.id, t.name, t.publicKey, now, now + 600_000],
    );
    const pair = () => fetch(`${b.origin}/fleet/pair`, { method: 'POST', body: JSON.stringify(pairRequest(t, b.id)) });
    const paired = await pair();
    expect(paired.status).toBe(200);
    const { ref } = (await paired.json()) as { ref: string };
    // Loaded here, last: the caps client locks this test process down (SES).
    const { connectCaps, E } = await import('../../src/caps/client.js');
    const client = await connectCaps<{ openSession(id: string): Promise<{ info(): { id: string } }> }>(
      `${b.origin.replace(/^http/, 'ws')}/captp`,
      ref,
      { headers: { [PEER_REF_HEADER]: ref } },
    );
    const session = await E(client.root).openSession(sid);
    expect((await E(session).info()).id).toBe(sid);
    const minted = () =>
      db.query('SELECT revoked_at FROM caps_refs WHERE label = $1 OR label = $2', [`fleet:${t.id}`, `peer ${t.id}`])
        .rows as { revoked_at: unknown }[];
    expect(minted().length).toBe(2); // the pair reference and the session's controller below it
    expect(minted().every((r) => r.revoked_at === null)).toBe(true);

    db.query('UPDATE fleet_hosts SET revoked_at = $1 WHERE id = $2', [Date.now(), t.id]);
    db.query(`SELECT pg_notify('talaria_fleet', $1)`, [JSON.stringify({ kind: 'host', id: t.id })]);
    // B cuts the socket at once (the row's notification), and every reference it minted for it is revoked.
    await client.closed;
    expect(minted().every((r) => r.revoked_at !== null)).toBe(true);
    const again = await pair();
    expect(again.status).toBe(403);
    expect(((await again.json()) as { message: string }).message).toMatch(/box-t is revoked/);
    // B still drives its session.
    expect((await api(b, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello' })).status).toBe(200);
  });
});
