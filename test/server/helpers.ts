/** Real servers on loopback over real harnesses (demo agent, Hermes emulator) in temp homes. */
import { request } from 'node:http';
import { expect } from 'vitest';
import { afterFile } from '../file-end.js';
import WebSocket from 'ws';
import { connectServer, type ServerClient } from '../../src/server/client/index.js';
import type { WebSocketCtor } from '../../src/server/client/socket.js';
import { RecordingRelay, startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import type { ServerMessage, SessionSnapshot, StreamEvent } from '../../src/server/contract/index.js';
import { makeHarness, place, type Place } from '../harness/helpers.js';

export { place, tempDir } from '../harness/helpers.js';

const servers: RunningServer[] = [];
afterFile(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export interface Served {
  p: Place;
  server: RunningServer;
  client: ServerClient;
  harness: ReturnType<typeof makeHarness>;
}

export async function serve(
  o: {
    hermes?: boolean;
    vars?: Record<string, string>;
    p?: Place;
    permission?: 'ask' | 'auto';
    storeBusyTimeoutMs?: number;
  } & Omit<ServerOptions, 'harness'> = {},
): Promise<Served> {
  const { hermes, vars, p: given, permission, storeBusyTimeoutMs, ...opts } = o;
  const p = given ?? place();
  // As `talaria serve` does: the harness's recording callbacks go to the server.
  const recording = new RecordingRelay();
  const harness = makeHarness(p, {
    ...(hermes ? { hermes } : {}),
    ...(vars ? { vars } : {}),
    ...(storeBusyTimeoutMs !== undefined ? { storeBusyTimeoutMs } : {}),
    ...recording.harnessOptions,
    host: { terminateGraceMs: 500, permission: { mode: permission ?? 'ask' } },
  });
  const server = await startServer({ harness, version: 'test', recording, ...opts });
  servers.push(server);
  const client = connectServer(server.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor });
  return { p, server, client, harness };
}

/** Raw HTTP (node:http, so Host can be anything) with full control over headers and token. */
export function raw(
  s: RunningServer,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; token?: string | null } = {},
): Promise<{
  status: number;
  json: Record<string, unknown> & { code?: string };
  text: string;
  headers: Record<string, string | string[] | undefined>;
}> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const tok = init.token === undefined ? s.token : init.token;
  if (tok) headers.authorization = `Bearer ${tok}`;
  if (init.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, path, method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({
          status: res.statusCode ?? 0,
          json: json as Record<string, unknown> & { code?: string },
          text,
          headers: res.headers,
        });
      });
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

/**
 * What a Probe records: the server's messages, with each `events` batch unfolded into one
 * `event` record per event (tests wait on events; how they were batched is the server's business).
 */
export type Seen = Exclude<ServerMessage, { type: 'events' }> | { type: 'event'; event: StreamEvent };

/** A raw `ws` client that records every message and can wait for one. */
export class Probe {
  /** The messages as they came on the wire. */
  readonly frames: ServerMessage[] = [];
  readonly messages: Seen[] = [];
  private waiters: { pred: (m: Seen) => boolean; resolve: (m: Seen) => void; reject: (e: Error) => void }[] = [];
  readonly ws: WebSocket;
  closed: Promise<number>;
  /** The close code once the socket closed: a wait still pending then can never be met, so it fails (it would hang). */
  private closedWith: number | undefined;
  constructor(s: RunningServer, o: { token?: string; headers?: Record<string, string> } = {}) {
    this.ws = new WebSocket(
      `${s.origin.replace(/^http/, 'ws')}/ws`,
      ['talaria', `talaria.token.${o.token ?? s.token}`],
      { headers: o.headers ?? {}, perMessageDeflate: false },
    );
    this.ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as ServerMessage;
      this.frames.push(m);
      for (const seen of m.type === 'events' ? m.events.map((event) => ({ type: 'event' as const, event })) : [m]) {
        this.messages.push(seen);
        this.waiters = this.waiters.filter((w) => (w.pred(seen) ? (w.resolve(seen), false) : true));
      }
    });
    this.closed = new Promise((r) =>
      this.ws.on('close', (code) => {
        this.closedWith = code;
        for (const w of this.waiters.splice(0)) w.reject(this.closedError());
        r(code);
      }),
    );
  }
  private closedError(): Error {
    return new Error(
      `the socket closed (code ${this.closedWith}) before the awaited message came (${this.messages.length} messages seen)`,
    );
  }
  wait<T extends Seen>(pred: (m: Seen) => boolean): Promise<T> {
    const hit = this.messages.find(pred);
    if (hit) return Promise.resolve(hit as T);
    return this.next(pred);
  }
  /** Waits for a message that arrives after now. */
  next<T extends Seen>(pred: (m: Seen) => boolean): Promise<T> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedError());
    return new Promise((resolve, reject) => this.waiters.push({ pred, resolve: resolve as (m: Seen) => void, reject }));
  }
  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }
  events(sessionId: string): StreamEvent[] {
    return this.messages.flatMap((m) => (m.type === 'event' && m.event.sessionId === sessionId ? [m.event] : []));
  }
  close(): void {
    this.ws.close();
  }
}

/** A /ws client subscribed to one session and caught up (welcome, subscribe, synced). */
export async function watching(s: RunningServer, sessionId: string): Promise<Probe> {
  const p = new Probe(s);
  await p.wait((m) => m.type === 'welcome');
  p.send({ type: 'subscribe', sessionId });
  await p.wait((m) => m.type === 'synced');
  return p;
}

export const isEvent = (sessionId: string, type: string) => (m: Seen) =>
  m.type === 'event' && m.event.sessionId === sessionId && m.event.type === type;

/** A demo-agent session in a workspace opened at the user's home. */
export async function demoSession(s: Served): Promise<string> {
  const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
  const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
  return snapshot.session.id;
}

/** A snapshot message's snapshot, as plain JSON (what a client holds). */
export const snapOf = (m: Seen | undefined) =>
  m && m.type === 'snapshot' ? (JSON.parse(JSON.stringify(m.snapshot)) as SessionSnapshot) : undefined;

/** Events numbered from `from` with no gap and no duplicate. */
export function contiguous(events: StreamEvent[], from: number): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + i));
}
