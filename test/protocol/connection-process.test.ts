/**
 * connectAgent over real pipes to real child processes: the raw fake executables in
 * test/fakes/bin. Every fault path ends in a typed error on a pending request.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { connectAgent, type AgentConnection, type ConnectAgentOptions } from '../../src/protocol/connection.js';
import { spawnAgent, type AgentProcess } from '../../src/protocol/spawn.js';
import { ConnectionClosedError } from '../../src/protocol/errors.js';
import type { Frame, ProtocolErrorEvent } from '../../src/protocol/types.js';
import { fake, type FakeName } from './fake-agents.js';

const open: AgentConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

interface Run {
  conn: AgentConnection;
  proc: AgentProcess;
  updates: unknown[];
  frames: Frame[];
  errors: ProtocolErrorEvent[];
  notifications: [string, unknown][];
}

async function run(name: FakeName, args: string[] = [], opts: Partial<ConnectAgentOptions> = {}): Promise<Run> {
  const proc = await spawnAgent(fake(name, ...args));
  const r: Omit<Run, 'conn'> = { proc, updates: [], frames: [], errors: [], notifications: [] };
  const conn = connectAgent({
    process: proc,
    onSessionUpdate: (p) => r.updates.push(p),
    onFrame: (f) => r.frames.push(f),
    onProtocolError: (e) => r.errors.push(e),
    onNotification: (m, p) => r.notifications.push([m, p]),
    terminateGraceMs: 300,
    ...opts,
  });
  open.push(conn);
  return { ...r, conn };
}

const NEW_SESSION = { cwd: '/tmp', mcpServers: [] };
const prompt = (sessionId: string, ...texts: string[]) => ({
  sessionId,
  prompt: texts.map((text) => ({ type: 'text', text })),
});

function closedError(e: unknown): ConnectionClosedError {
  expect(e).toBeInstanceOf(ConnectionClosedError);
  return e as ConnectionClosedError;
}

describe('connectAgent over real pipes', () => {
  it('echo agent: a full turn, updates before the response, extra fields kept, -32601 for unknown client methods', async () => {
    const { conn, updates } = await run('echo-agent', [], {
      handlers: { readTextFile: async (p) => ({ content: `contents of ${p.path}` }) },
    });
    const caps = await conn.initialize();
    expect(caps.agentInfo?.name).toBe('echo-agent');
    const s = await conn.request<{ sessionId: string; extraField: unknown }>('session/new', NEW_SESSION);
    expect(s).toEqual({ sessionId: 'echo-1', extraField: { kept: true } });
    const res = await conn.request(
      'session/prompt',
      prompt('echo-1', 'hello', 'call:craft/drainMidTurnQueue', 'call:fs/read_text_file'),
    );
    expect(res).toEqual({ stopReason: 'end_turn', extraTopLevel: 'kept', _meta: { echo: true } });
    const texts = updates.map((u) => (u as { update: { content: { text: string } } }).update.content.text);
    expect(texts[0]).toBe('hello');
    expect(JSON.parse(texts[1]!).error).toMatchObject({ code: -32601, data: { method: 'craft/drainMidTurnQueue' } });
    // Params fail the SDK's schema (no path) → -32602 from the SDK's validation, handler never runs.
    expect(JSON.parse(texts[2]!).error).toMatchObject({ code: -32602 });
  });

  it("crash mid-turn → ConnectionClosedError('exit') with exit code and stderr tail; streamed updates kept", async () => {
    const { conn, updates, proc } = await run('crash-mid-turn');
    await conn.initialize();
    await conn.request('session/new', NEW_SESSION);
    const err = closedError(await conn.request('session/prompt', prompt('crash-1', 'go')).catch((e: unknown) => e));
    expect(err.reason).toBe('exit');
    expect(err.details).toMatchObject({ cause: 'exit', exitCode: 3, signal: null });
    expect(err.details?.stderrTail).toMatch(/RuntimeError: fake model backend exploded/);
    expect(err.message).toMatch(/exited with code 3.*fake model backend exploded/s);
    expect(updates).toHaveLength(2);
    const info = await conn.closed;
    expect(info).toMatchObject({ cause: 'exit', exitCode: 3 });
    expect(proc.hasExited).toBe(true);
  });

  it("exit during initialize → initialize rejects with cause 'exit', code 2 and the stderr message", async () => {
    const { conn } = await run('exit-during-initialize');
    const err = closedError(await conn.initialize().catch((e: unknown) => e));
    expect(err.reason).toBe('exit');
    expect(err.details).toMatchObject({ exitCode: 2 });
    expect(err.message).toMatch(/config\.yaml is invalid/);
  });

  it("hang + close() → pending request rejects 'closed'; close resolves once the child is gone (SIGTERM after grace)", async () => {
    const { conn, proc } = await run('hang');
    await conn.initialize();
    const pending = conn.request('session/new', NEW_SESSION).catch((e: unknown) => e);
    await conn.close();
    expect(closedError(await pending).reason).toBe('closed');
    expect(proc.hasExited).toBe(true);
    expect((await proc.exited).signal).toBe('SIGTERM'); // hang ignores stdin EOF
    expect((await conn.closed).cause).toBe('closed');
  });

  it("hang + the child is killed → 'exit' with the signal, and no unhandled rejection", async () => {
    const { conn, proc } = await run('hang');
    await conn.initialize();
    const a = conn.request('session/new', NEW_SESSION).catch((e: unknown) => e);
    const b = conn.request('session/list', {}, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    proc.kill('SIGKILL');
    for (const e of [await a, await b]) {
      const err = closedError(e);
      expect(err.reason).toBe('exit');
      expect(err.details).toMatchObject({ signal: 'SIGKILL', exitCode: null });
      expect(err.message).toMatch(/killed by SIGKILL/);
    }
    await conn.close(); // idempotent after the fact
  });

  it("stdout closed while the child lives → 'eof'; the child is then terminated", async () => {
    const { conn, proc } = await run('close-stdout', [], { exitGraceMs: 200 });
    await conn.initialize();
    const err = closedError(await conn.request('session/new', NEW_SESSION).catch((e: unknown) => e));
    expect(err.reason).toBe('eof');
    expect((await conn.closed).cause).toBe('eof');
    // Not leaked: stdin was closed, and the fake exits 0 on stdin EOF.
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('garbage on stdout is reported and skipped; the connection works normally', async () => {
    const { conn, errors, updates, notifications, frames } = await run('garbage-stdout');
    await conn.initialize();
    await conn.request('session/new', NEW_SESSION);
    const res = await conn.request('session/prompt', prompt('garbage-1', 'hi'));
    expect(res).toEqual({ stopReason: 'end_turn' });
    expect(updates.map((u) => (u as { update: { content: { text: string } } }).update.content.text)).toEqual([
      'still ',
      'alive',
    ]);
    const kinds = new Set(errors.map((e) => e.kind));
    expect(kinds).toEqual(new Set(['non_json', 'invalid_jsonrpc']));
    expect(errors.some((e) => e.preview.includes('Reached maximum iterations'))).toBe(true);
    expect(errors.some((e) => e.detail?.includes('batch'))).toBe(true);
    // 4 garbage bursts × (2 non-JSON + 5 invalid + 1 truncated) = 32 events.
    expect(errors).toHaveLength(32);
    expect(notifications.filter(([m]) => m === '_garbage/ping')).toHaveLength(4); // the CRLF-terminated one
    expect(frames.every((f) => typeof f.msg === 'object')).toBe(true);
    expect(conn.isClosed).toBe(false);
  });

  it('slow start: initialize waits for the answer (no timeout)', async () => {
    const { conn } = await run('slow-start', ['800']);
    const caps = await conn.initialize();
    expect(caps.agentInfo?.name).toBe('echo-agent');
  });
});
