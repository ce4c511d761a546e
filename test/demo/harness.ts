/**
 * Test peer for the demo agent: spawns the REAL executable (src/demo/main.ts) over real
 * pipes and drives it with the SDK's client side. Every frame in both directions is also
 * tapped raw and checked (both directions) by the wire checker against the official unstable schema.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { afterFile } from '../file-end.js';
import { createWireChecker, formatViolation } from '../../src/protocol/wire-check.js';

export const DEMO_MAIN = fileURLToPath(new URL('../../src/demo/main.ts', import.meta.url));

const made: string[] = [];
// Runs after each test file that uses these helpers (test/file-end.ts).
afterFile(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix: string): string {
  // realpath: macOS-style /tmp symlinks would otherwise make cwd comparisons flaky.
  const d = realpathSync(mkdtempSync(join(tmpdir(), `talaria-demo-test-${prefix}-`)));
  made.push(d);
  return d;
}

type RawFrame = { dir: 'client->agent' | 'agent->client'; msg: Record<string, unknown> };
type PermissionAnswer = (
  req: acp.RequestPermissionRequest,
) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

export const allow = (optionId = 'allow'): acp.RequestPermissionResponse => ({
  outcome: { outcome: 'selected', optionId },
});
export const cancelledOutcome: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

export interface DemoPeer {
  child: ChildProcess;
  conn: acp.ClientConnection;
  agent: acp.ClientContext;
  /** Every session/update, in arrival order. */
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  frames: RawFrame[];
  /** Schema violations (official unstable ACP schema, both directions), one line each. */
  violations: string[];
  /** How permission requests are answered (default: allow once). */
  answer: PermissionAnswer;
  stderr: () => string;
  /** Resolves when `pred` returns a truthy value; re-checked on every frame. */
  waitFor<T>(pred: () => T | undefined | null | false): Promise<T>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Close stdin and wait for the exit. */
  end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** session/new + wait for its available_commands_update. */
  newSession(cwd: string): Promise<acp.NewSessionResponse>;
  /** Updates of one session from index `from` on. */
  of(sessionId: string, from?: number): acp.SessionUpdate[];
}

export async function spawnDemo(env: Record<string, string>): Promise<DemoPeer> {
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO_MAIN], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TALARIA_DEMO_CHUNK_DELAY_MS: '0',
      TALARIA_DEMO_SLOW_DELAY_MS: '50',
      TALARIA_DEMO_DEBUG: '',
      ...env,
    },
  });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('exit', (code, signal) => res({ code, signal })),
  );

  const waiters = new Set<() => void>();
  const poke = (): void => {
    for (const w of [...waiters]) w();
  };
  const wire = createWireChecker();
  const peer = {
    child,
    updates: [] as acp.SessionNotification[],
    permissions: [] as acp.RequestPermissionRequest[],
    frames: [] as RawFrame[],
    violations: [] as string[],
    answer: (() => allow()) as PermissionAnswer,
  };

  const tap = (dir: RawFrame['dir']): ((chunk: Uint8Array) => void) => {
    let buf = '';
    return (chunk) => {
      buf += Buffer.from(chunk).toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          peer.violations.push(`${dir}: not JSON: ${line.slice(0, 200)}`);
          continue;
        }
        peer.frames.push({ dir, msg });
        for (const v of wire.check({ dir, msg })) peer.violations.push(formatViolation(v));
      }
      poke();
    };
  };

  const fromAgent = tap('agent->client');
  child.stdout?.on('data', (d: Buffer) => fromAgent(d));
  const toAgent = tap('client->agent');
  const stdin = (Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>).getWriter();
  const output = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      toAgent(chunk);
      await stdin.write(chunk);
    },
    close: () => stdin.close(),
    abort: (r) => stdin.abort(r),
  });

  const conn = acp
    .client({ name: 'demo-test' })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      peer.permissions.push(params);
      poke();
      return peer.answer(params);
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      peer.updates.push(params);
      poke();
    })
    .connect(acp.ndJsonStream(output, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  conn.closed.catch(() => undefined);

  const full: DemoPeer = Object.assign(peer, {
    conn,
    agent: conn.agent,
    stderr: () => err,
    exited,
    waitFor<T>(pred: () => T | undefined | null | false): Promise<T> {
      return new Promise<T>((res) => {
        const w = (): void => {
          const v = pred();
          if (v) {
            waiters.delete(w);
            res(v);
          }
        };
        waiters.add(w);
        w();
      });
    },
    async end() {
      child.stdin?.end();
      return exited;
    },
    async newSession(cwd: string) {
      const r = await conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      await full.waitFor(() =>
        peer.updates.find((u) => u.sessionId === r.sessionId && u.update.sessionUpdate === 'usage_update'),
      );
      return r;
    },
    of(sessionId: string, from = 0) {
      return peer.updates
        .slice(from)
        .filter((u) => u.sessionId === sessionId)
        .map((u) => u.update);
    },
  });
  const init = await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  if (init.protocolVersion !== 1) throw new Error('demo agent did not answer initialize');
  return full;
}

/** Concatenated text of the agent_message_chunk (or thought) updates. */
export function textOf(
  updates: acp.SessionUpdate[],
  kind: 'agent_message_chunk' | 'agent_thought_chunk' = 'agent_message_chunk',
): string {
  return updates
    .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: typeof kind }> => u.sessionUpdate === kind)
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

export type ToolState = {
  kind?: string | null;
  title?: string | null;
  status?: string | null;
  content: acp.ToolCallContent[];
  rawInput?: unknown;
  rawOutput?: unknown;
  locations?: acp.ToolCallLocation[] | null;
};

/** Tool calls folded by id (later fields win), in order of first appearance. */
export function toolCalls(updates: acp.SessionUpdate[]): Array<ToolState & { id: string }> {
  const map = new Map<string, ToolState & { id: string }>();
  for (const u of updates) {
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
    const cur = map.get(u.toolCallId) ?? { id: u.toolCallId, content: [] };
    const { sessionUpdate: _k, toolCallId: _id, ...rest } = u;
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) (cur as Record<string, unknown>)[k] = v;
    map.set(u.toolCallId, cur);
  }
  return [...map.values()];
}

export function contentText(c: acp.ToolCallContent[]): string {
  return c.map((x) => (x.type === 'content' && x.content.type === 'text' ? x.content.text : '')).join('\n');
}

export async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof acp.RequestError) return { code: e.code, message: e.message, data: e.data };
    throw e;
  }
  throw new Error('expected a JSON-RPC error');
}
