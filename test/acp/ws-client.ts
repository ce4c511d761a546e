/**
 * An editor-side ACP client over WebSocket: the official SDK client on the SDK's own WebSocket
 * transport (`createWebSocketStream`, Node `ws`), every frame kept for the wire checker.
 */
import * as acp from '@agentclientprotocol/sdk';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import WebSocket from 'ws';
import type { Frame } from '../../src/protocol/types.js';

type Msg = Record<string, any>;

export interface WsEditor {
  frames: Frame[];
  updates: Msg[];
  permissions: Msg[];
  /** `$/cancel_request`s the server sent (a question withdrawn). */
  withdrawn: Msg[];
  onPermission: (params: Msg) => Msg | Promise<Msg>;
  conn: acp.ClientConnection;
  request<T = Msg>(method: string, params: unknown): Promise<T>;
  until(pred: () => boolean, label: string): Promise<void>;
  close(): void;
}

export function wsEditor(url: string, token: string): WsEditor {
  const stream = createWebSocketStream(url, {
    WebSocket: WebSocket as never,
    headers: { authorization: `Bearer ${token}` },
  });
  const frames: Frame[] = [];
  const updates: Msg[] = [];
  const permissions: Msg[] = [];
  const withdrawn: Msg[] = [];
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (!w.pred()) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  // Tap both directions (raw) on their way through.
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(msg, c) {
        frames.push({ dir: 'agent->client', t_ms: Date.now(), msg: msg as Frame['msg'], raw: JSON.stringify(msg) });
        if ((msg as Msg).method === '$/cancel_request') withdrawn.push((msg as Msg).params);
        c.enqueue(msg);
        queueMicrotask(check);
      },
    }),
  );
  const out = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
    async write(msg) {
      frames.push({ dir: 'client->agent', t_ms: Date.now(), msg: msg as Frame['msg'], raw: JSON.stringify(msg) });
      await out.write(msg);
    },
    async close() {
      await out.close();
    },
  });
  const ed: Partial<WsEditor> = {};
  const conn = acp
    .client({ name: 'test-ws-editor' })
    .onRequest('session/request_permission', async (ctx) => {
      permissions.push(ctx.params as Msg);
      check();
      return (await ed.onPermission!(ctx.params as Msg)) as acp.RequestPermissionResponse;
    })
    .onNotification('*', (ctx) => {
      if (ctx.method === 'session/update') updates.push(ctx.params as Msg);
      check();
    })
    .connect({ readable, writable });
  Object.assign(ed, {
    frames,
    updates,
    permissions,
    withdrawn,
    conn,
    onPermission: (p: Msg) => {
      const allow = (p.options as Msg[]).find((x) => String(x.kind).startsWith('allow')) ?? p.options[0];
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    },
    request: (m: string, p: unknown) => conn.agent.request(m, p),
    until: (pred: () => boolean, label: string) =>
      new Promise<void>((resolve, reject) => {
        if (pred()) return resolve();
        waiters.push({ pred, resolve });
        conn.signal.addEventListener(
          'abort',
          () => reject(new Error(`the /acp connection closed while waiting for ${label}`)),
          { once: true },
        );
      }),
    close: () => conn.close(),
  });
  return ed as WsEditor;
}
