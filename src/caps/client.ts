/**
 * The library's caps client: `connectCaps(url, ref)` opens a WebSocket, fetches the bootstrap
 * (first: a call pipelined on the bootstrap in the same tick is dropped by CapTP), then redeems
 * `ref` and returns the remote object, typed. Call it with `E(obj).method(...)`; chains pipeline.
 * Importing this module locks the process down (SES), as CapTP requires.
 */
import './lockdown.js';
import { makeCapTP, type CapTP } from '@endo/captp';
import { E, Far } from '@endo/far';
import { WebSocket } from 'ws';
import { answerSlotsIn, answerSlotsOut } from './answer-slots.js';
import { exportCounter, type ExportCount } from './export-count.js';
import type { FactChange } from './dataspace-facet.js';

export { E, Far };

/** What a session reference does (controller; a reader has subscribe/snapshot/info/share). */
export interface CapsSession {
  prompt(blocks: string | readonly Record<string, unknown>[], sink?: unknown): CapsTurn;
  cancel(): Promise<unknown>;
  setModel(id: string): Promise<unknown>;
  setMode(id: string): Promise<unknown>;
  fork(): Promise<CapsSession>;
  subscribe(sink: unknown, afterSeq?: number): CapsSubscription;
  snapshot(): { sessionId: string; seq: number; entries: unknown[]; state: string };
  info(): { id: string; provider: string; cwd: string; title: string; state: string; model: string; facet: string };
  reader(): CapsSession;
  /** Answers one of this session's pending permission requests (a controller with answerPermission). */
  answerPermission(requestKey: string, optionId: string): { ok: boolean; reason?: string };
  share(o: { facet: 'controller' | 'reader'; expiresIn?: number; methods?: string[] }): string;
}
export interface CapsTurn {
  id(): string;
  result(): Promise<{ turnId: string; stopReason: string; [k: string]: unknown }>;
  cancel(): Promise<unknown>;
}
export interface CapsSubscription {
  cancel(): void;
}
export interface CapsLauncher {
  newSession(o?: { provider?: string; profile?: string }): Promise<CapsSession>;
  info(): { workspace: string; provider: string };
}
export interface CapsPermission {
  details(): {
    requestKey: string;
    sessionId: string;
    toolCallId: string;
    title: string;
    options: { optionId: string; name?: string; kind?: string }[];
  };
  answer(optionId: string): { ok: boolean; reason?: string };
  share(o?: { expiresIn?: number }): string;
}
export interface CapsDataspace {
  assert(fact: Record<string, unknown>): string;
  retract(handle: string): boolean;
  observe(pattern: Record<string, string | number | boolean | null>, observer: unknown): CapsSubscription;
}
export interface CapsBootstrap {
  fetch(ref: string): Promise<unknown>;
}

export interface CapsClient<T> {
  /** The redeemed object (a promise for it: calls on it pipeline). */
  readonly root: Promise<T>;
  readonly bootstrap: CapsBootstrap;
  readonly captp: CapTP;
  /** Objects this client exported (sinks, observers, what they return) and how many were collected. */
  exports(): ExportCount;
  /** Redeems another reference on the same connection. */
  fetch<U>(ref: string): Promise<U>;
  /** Resolves when the socket closes (for any reason). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface ConnectCapsOptions {
  maxPayload?: number;
  /** The server's access token, when it is mounted on `talaria serve` (sent as a Bearer header). */
  token?: string;
  /** More request headers (a fleet host presents its pair reference in one). */
  headers?: Record<string, string>;
  onError?: (err: unknown) => void;
  /** Sees every message, in and out (tests, debugging). */
  tap?: (dir: 'in' | 'out', msg: { type: string }) => void;
}

export async function connectCaps<T = unknown>(
  url: string,
  ref: string,
  o: ConnectCapsOptions = {},
): Promise<CapsClient<T>> {
  const ws = new WebSocket(url, {
    maxPayload: o.maxPayload ?? 16 * 1024 * 1024,
    headers: { ...o.headers, ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let closeCode = 0;
  const closed = new Promise<void>((resolve) =>
    ws.once('close', (code) => {
      closeCode = code;
      resolve();
    }),
  );
  const exports = exportCounter();
  const captp = makeCapTP(
    'talaria-client',
    (m) => {
      o.tap?.('out', m as { type: string });
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(answerSlotsOut(m)));
    },
    undefined,
    { gcImports: true, exportHook: exports.hook, onReject: (err) => o.onError?.(err) },
  );
  ws.on('message', (data) => {
    try {
      const m = JSON.parse(String(data)) as { type: string };
      o.tap?.('in', m);
      captp.dispatch(answerSlotsIn(m));
    } catch (err) {
      o.onError?.(err);
    }
  });
  ws.on('error', (err) => o.onError?.(err));
  void closed.then(() => {
    try {
      // The code tells a frame over the other side's limit (1009) or a rate cut (1008) from a plain close.
      captp.abort(new Error(`the caps connection closed (${closeCode})`));
    } catch {
      // already aborted
    }
  });
  const bootstrap = (await captp.getBootstrap()) as CapsBootstrap;
  const fetch = <U>(r: string): Promise<U> => E(bootstrap).fetch(r) as Promise<U>;
  const root = fetch<T>(ref);
  root.catch(() => {});
  return {
    root,
    bootstrap,
    captp,
    exports: exports.count,
    fetch,
    closed,
    close: async () => {
      ws.close();
      await closed;
    },
  };
}

/** A sink for session events: `fn` gets each batch; its returned promise is the backpressure. */
export function makeEventSink(fn: (batch: readonly Record<string, unknown>[]) => unknown): unknown {
  return Far('Sink', { onEvents: (batch: readonly Record<string, unknown>[]) => fn(batch) });
}

/** An observer for dataspace facts. */
export function makeFactObserver(fn: (batch: readonly FactChange[]) => unknown): unknown {
  return Far('Observer', { onFacts: (batch: readonly FactChange[]) => fn(batch) });
}
