/**
 * Drives `talaria acp` as an editor would: the real CLI in a child process, the official SDK's
 * client (`acp.client()`) over the child's real pipes. Every frame both ways is kept (raw, in
 * order) for the wire checker; waits are on conditions.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import type { Frame } from '../../src/protocol/types.js';
import { BIN, tempDir } from '../cli/helpers.js';

export const HERMES = fileURLToPath(new URL('../fakes/hermes/bin/hermes', import.meta.url));

type Msg = Record<string, any>;

export interface Editor {
  /** The `talaria acp` process (its stdout is what the editor reads). */
  child: ChildProcessWithoutNullStreams;
  /** Every frame: 'agent->client' = written by talaria acp, 'client->agent' = sent by the editor. */
  frames: Frame[];
  /** Non-JSON lines talaria acp wrote on stdout (must stay empty). */
  noise: string[];
  stderr: () => string;
  conn: acp.ClientConnection;
  request<T = Msg>(method: string, params: unknown): Promise<T>;
  notify(method: string, params: unknown): Promise<void>;
  /** Writes raw bytes to talaria acp's stdin (bad input tests). */
  raw(text: string): void;
  /** `session/update` params received, in order. */
  updates: Msg[];
  /** How the editor answers permission requests (default: the first allow option). */
  onPermission: (params: Msg) => Msg;
  permissions: Msg[];
  /** Requests outside the client methods the SDK knows (vendor ones), in order: how the editor answers them (default: -32601). */
  onOther: (method: string, params: Msg) => Msg;
  others: { method: string; params: Msg }[];
  until(pred: () => boolean, label: string): Promise<void>;
  close(): Promise<number | null>;
}

export function editorEnv(extra: Record<string, string> = {}): { home: string; env: Record<string, string> } {
  const home = tempDir('acp');
  const hermesHome = join(home, 'hermes');
  mkdirSync(hermesHome, { recursive: true });
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  return {
    home,
    env: {
      TALARIA_HOME: join(home, 'talaria'),
      TALARIA_DEMO_HOME: join(home, 'demo'),
      TALARIA_DEMO_CHUNK_DELAY_MS: '0',
      HERMES_HOME: hermesHome,
      NO_COLOR: '1',
      ...extra,
    },
  };
}

/**
 * `talaria acp REST` as another Talaria's agent command. An agent's environment is built from an
 * allow-list, so the outer Talaria never hands its TALARIA_HOME on: without its own, the inner one
 * recorded into the user's ~/.talaria (660 sessions there from this suite). The demo's delay goes too.
 */
export function talariaAcpCommand(home: string, rest: string): string {
  return `env TALARIA_HOME=${home} TALARIA_DEMO_CHUNK_DELAY_MS=0 "${process.execPath}" "${BIN}" acp ${rest}`;
}

export function startEditor(args: string[], o: { cwd: string; env: Record<string, string> }): Editor {
  const child = spawn(process.execPath, [BIN, 'acp', ...args], {
    cwd: o.cwd,
    env: { ...process.env, ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const frames: Frame[] = [];
  const noise: string[] = [];
  const updates: Msg[] = [];
  const permissions: Msg[] = [];
  const others: { method: string; params: Msg }[] = [];
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  let err = '';
  const check = () => {
    for (const w of [...waiters]) {
      if (!w.pred()) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  child.stdin.on('error', () => undefined);
  let buf = '';
  const readable = new ReadableStream<acp.AnyMessage>({
    start(controller) {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() === '') continue;
          let msg: Msg;
          try {
            msg = JSON.parse(line) as Msg;
          } catch {
            noise.push(line);
            continue;
          }
          frames.push({ dir: 'agent->client', t_ms: Date.now(), msg, raw: line });
          // A parse-error answer (id null) is for our raw writes, not the SDK.
          if (!(msg.id === null && msg.error)) controller.enqueue(msg as acp.AnyMessage);
        }
        check();
      });
      child.stdout.on('end', () => controller.close());
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    write(msg) {
      const raw = JSON.stringify(msg);
      frames.push({ dir: 'client->agent', t_ms: Date.now(), msg: msg as Frame['msg'], raw });
      child.stdin.write(`${raw}\n`);
    },
  });
  const ed: Partial<Editor> = {};
  const app = acp
    .client({ name: 'test-editor' })
    .onRequest('session/request_permission', (ctx) => {
      permissions.push(ctx.params as Msg);
      check();
      return ed.onPermission!(ctx.params as Msg) as acp.RequestPermissionResponse;
    })
    .onNotification('*', (ctx) => {
      if (ctx.method === 'session/update') updates.push(ctx.params as Msg);
      check();
    })
    // After the notification fallback: the SDK tries fallbacks in order, and an extra await ahead of
    // every update would let a prompt's answer overtake the updates sent before it.
    .onRequest('*', (ctx) => {
      others.push({ method: ctx.method, params: ctx.params as Msg });
      check();
      return ed.onOther!(ctx.method, ctx.params as Msg);
    });
  const conn = app.connect({ readable, writable });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  Object.assign(ed, {
    child,
    frames,
    noise,
    updates,
    permissions,
    others,
    conn,
    stderr: () => err,
    request: (m: string, p: unknown) => conn.agent.request(m, p),
    notify: (m: string, p: unknown) => conn.agent.notify(m, p),
    raw: (text: string) => child.stdin.write(text),
    onOther: (method: string) => {
      throw acp.RequestError.methodNotFound(method);
    },
    onPermission: (p: Msg) => {
      const allow = (p.options as Msg[]).find((x) => String(x.kind).startsWith('allow')) ?? p.options[0];
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    },
    until: (pred: () => boolean, label: string) =>
      new Promise<void>((resolve, reject) => {
        if (pred()) return resolve();
        waiters.push({ pred, resolve });
        void exited.then((code) =>
          reject(new Error(`talaria acp exited (${code}) while waiting for ${label}\n${err}`)),
        );
      }),
    close: async () => {
      child.stdin.end();
      return exited;
    },
  });
  return ed as Editor;
}

/** The text of the agent_message_chunks of a session, in order. */
export function agentText(updates: Msg[], sessionId: string): string {
  return updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.update.content?.type === 'text' ? u.update.content.text : ''))
    .join('');
}
