/**
 * connectAgent against an in-process agent built with the SDK's agent side, over real Node
 * streams (PassThrough pairs) and our own transport.
 */
import { describe, it, expect, afterEach, vi } from 'vitest';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { connectAgent, type AgentConnection, type ConnectAgentOptions } from '../../src/protocol/connection.js';
import { ConnectionClosedError, TalariaError } from '../../src/protocol/errors.js';
import { RequestError } from '../../src/protocol/wire-error.js';
import type { Frame, Logger, RawMessage } from '../../src/protocol/types.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseWireLog } from '../../src/protocol/wire-log.js';

const TOOLS_FIXTURE = fileURLToPath(new URL('../fixtures/hermes-0.18.2/tools.ndjson', import.meta.url));

type PromptScript = (ctx: acp.AgentRequestContext<acp.PromptRequest>) => Promise<acp.PromptResponse>;

interface Harness {
  conn: AgentConnection;
  a2c: PassThrough;
  c2a: PassThrough;
  frames: Frame[];
  updates: unknown[];
  notifications: [string, unknown][];
  logs: { level: string; msg: string; data?: Record<string, unknown> }[];
  initParams: () => acp.InitializeRequest | undefined;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of cleanups.splice(0)) await f();
});

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function setup(
  prompt: PromptScript = async () => ({ stopReason: 'end_turn' }),
  opts: Partial<ConnectAgentOptions> = {},
): Harness {
  const a2c = new PassThrough();
  const c2a = new PassThrough();
  let initParams: acp.InitializeRequest | undefined;
  const agent = acp
    .agent({ name: 'test-agent' })
    .onRequest(acp.methods.agent.initialize, async ({ params }) => {
      initParams = params;
      return {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, sessionCapabilities: { close: {} } },
        agentInfo: { name: 'test-agent', version: '9.9.9' },
        extraTopLevel: 'kept',
      } as acp.InitializeResponse;
    })
    .onRequest(
      acp.methods.agent.session.new,
      async () =>
        ({ sessionId: 's1', models: { currentModelId: 'm' }, extraField: { x: 1 } }) as acp.NewSessionResponse,
    )
    .onRequest(acp.methods.agent.session.prompt, prompt);
  const agentConn = agent.connect(
    acp.ndJsonStream(
      Writable.toWeb(a2c) as WritableStream<Uint8Array>,
      Readable.toWeb(c2a) as ReadableStream<Uint8Array>,
    ),
  );
  const frames: Frame[] = [];
  const updates: unknown[] = [];
  const notifications: [string, unknown][] = [];
  const logs: Harness['logs'] = [];
  const logger: Logger = {
    debug: (msg, data) => logs.push({ level: 'debug', msg, data }),
    info: (msg, data) => logs.push({ level: 'info', msg, data }),
    warn: (msg, data) => logs.push({ level: 'warn', msg, data }),
    error: (msg, data) => logs.push({ level: 'error', msg, data }),
  };
  const conn = connectAgent({
    streams: { input: a2c, output: c2a },
    onSessionUpdate: (params) => updates.push(params),
    onFrame: (f) => frames.push(f),
    onNotification: (m, p) => notifications.push([m, p]),
    logger,
    ...opts,
  });
  cleanups.push(async () => {
    await conn.close();
    agentConn.close();
  });
  return { conn, a2c, c2a, frames, updates, notifications, logs, initParams: () => initParams };
}

describe('connectAgent: initialize', () => {
  it('sends protocol 1, clientInfo and only the capabilities we handle; exposes the view and raw response', async () => {
    const h = setup(undefined, { handlers: { readTextFile: async () => ({ content: '' }) } });
    expect(() => h.conn.capabilities).toThrow(TalariaError);
    const caps = await h.conn.initialize();
    // What went on the wire (the agent's zod parse adds defaults such as auth.terminal).
    expect(h.frames.find((f) => f.msg.method === 'initialize')!.msg.params).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'talaria', title: 'Talaria', version: '0.1.0' },
    });
    expect(h.initParams()?.protocolVersion).toBe(1);
    expect(caps).toBe(h.conn.capabilities);
    expect(caps.supportsLoad).toBe(true);
    expect(caps.supportsSession('close')).toBe(true);
    expect(caps.supportsSession('list')).toBe(false);
    expect(caps.agentInfo).toEqual({ name: 'test-agent', version: '9.9.9' });
    expect(h.conn.initializeResponse?.extraTopLevel).toBe('kept');
    expect(await h.conn.initialize()).toBe(caps); // idempotent, nothing resent
    expect(h.frames.filter((f) => f.msg.method === 'initialize')).toHaveLength(1);
  });

  it('rejects requests and notifications before initialize with not_initialized, sending nothing', async () => {
    const h = setup();
    const err = await h.conn.request('session/new', { cwd: '/', mcpServers: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TalariaError);
    expect((err as TalariaError).code).toBe('not_initialized');
    await expect(h.conn.notify('session/cancel', { sessionId: 's' })).rejects.toMatchObject({
      code: 'not_initialized',
    });
    expect(h.frames).toEqual([]);
  });
});

describe('connectAgent: requests', () => {
  it('returns the raw result with extra fields kept', async () => {
    const h = setup(
      async () => ({ stopReason: 'end_turn', extraTopLevel: 'kept', _meta: { n: 1 } }) as acp.PromptResponse,
    );
    await h.conn.initialize();
    expect(await h.conn.request('session/new', { cwd: '/', mcpServers: [] })).toEqual({
      sessionId: 's1',
      models: { currentModelId: 'm' },
      extraField: { x: 1 },
    });
    expect(await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] })).toEqual({
      stopReason: 'end_turn',
      extraTopLevel: 'kept',
      _meta: { n: 1 },
    });
  });

  it('delivers every session/update (raw, unknown kinds included) before the prompt response resolves', async () => {
    const h = setup(async ({ client, params }) => {
      for (let i = 0; i < 1000; i++) {
        void client.notify('session/update', {
          sessionId: params.sessionId,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(i) } },
        });
      }
      // The SDK's router would drop this (unknown kind) and strip `extra`.
      void client.notify('session/update', {
        sessionId: params.sessionId,
        update: { sessionUpdate: 'weird_kind', extra: true },
      });
      return { stopReason: 'end_turn' };
    });
    await h.conn.initialize();
    const res = h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    await res;
    expect(h.updates).toHaveLength(1001);
    expect(h.updates[0]).toEqual({
      sessionId: 's1',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '0' } },
    });
    expect(h.updates[1000]).toEqual({ sessionId: 's1', update: { sessionUpdate: 'weird_kind', extra: true } });
  });

  it('agent JSON-RPC errors become RequestError(code, message, data, method)', async () => {
    const h = setup(async () => {
      throw acp.RequestError.invalidParams({ field: 'prompt' });
    });
    await h.conn.initialize();
    const err = await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(err).toMatchObject({ code: -32602, data: { field: 'prompt' }, method: 'session/prompt' });
    const unknown = await h.conn
      .request('session/set_model', { sessionId: 's1', modelId: 'x' })
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: -32601, method: 'session/set_model' });
  });

  it('timeout → TalariaError(timeout) and a $/cancel_request for that id', async () => {
    const agentSawCancel = deferred<unknown>();
    const h = setup(async ({ signal }) => {
      await new Promise((r) => signal.addEventListener('abort', r));
      agentSawCancel.resolve(signal.reason);
      return { stopReason: 'cancelled' };
    });
    await h.conn.initialize();
    const err = await h.conn
      .request('session/prompt', { sessionId: 's1', prompt: [] }, { timeoutMs: 30 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TalariaError);
    expect((err as TalariaError).code).toBe('timeout');
    await agentSawCancel.promise;
    const promptId = h.frames.find((f) => f.msg.method === 'session/prompt')!.msg.id;
    expect(h.frames.filter((f) => f.msg.method === '$/cancel_request').map((f) => f.msg.params)).toEqual([
      { requestId: promptId },
    ]);
    // The late answer to the abandoned request is swallowed quietly, the connection lives on.
    expect(await h.conn.request('session/new', { cwd: '/', mcpServers: [] })).toMatchObject({ sessionId: 's1' });
  });

  it('abort signal → TalariaError(aborted) and a $/cancel_request; a pre-aborted signal sends nothing', async () => {
    const started = deferred();
    const h = setup(async ({ signal }) => {
      started.resolve();
      await new Promise((r) => signal.addEventListener('abort', r));
      return { stopReason: 'cancelled' };
    });
    await h.conn.initialize();
    const ac = new AbortController();
    const p = h.conn.request('session/prompt', { sessionId: 's1', prompt: [] }, { signal: ac.signal });
    await started.promise;
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'aborted' });
    expect(h.frames.some((f) => f.msg.method === '$/cancel_request')).toBe(true);
    const before = h.frames.length;
    await expect(h.conn.request('session/new', {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(h.frames.length).toBe(before);
  });
});

describe('connectAgent: agent→client traffic', () => {
  it('answers an unknown agent→client request with -32601 (e.g. craft/drainMidTurnQueue)', async () => {
    let reply: unknown;
    const h = setup(async ({ client }) => {
      reply = await client.request('craft/drainMidTurnQueue', { sessionId: 's1' }).catch((e: unknown) => e);
      return { stopReason: 'end_turn' };
    });
    await h.conn.initialize();
    await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    expect(reply).toBeInstanceOf(acp.RequestError);
    expect(reply).toMatchObject({ code: -32601, data: { method: 'craft/drainMidTurnQueue' } });
  });

  it('fs/terminal requests are -32601 when no handler was given', async () => {
    let reply: unknown;
    const h = setup(async ({ client }) => {
      reply = await client.request('fs/read_text_file', { sessionId: 's1', path: '/x' }).catch((e: unknown) => e);
      return { stopReason: 'end_turn' };
    });
    await h.conn.initialize();
    await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    expect(reply).toMatchObject({ code: -32601 });
  });

  it('calls handlers with validated params plus the raw params; RequestError → JSON-RPC error with code/data', async () => {
    const replies: unknown[] = [];
    const seen: unknown[] = [];
    const h = setup(
      async ({ client }) => {
        replies.push(await client.request('fs/read_text_file', { sessionId: 's1', path: '/ok', unknownKey: 1 }));
        replies.push(
          await client.request('fs/read_text_file', { sessionId: 's1', path: '/missing' }).catch((e: unknown) => e),
        );
        replies.push(
          await client
            .request('fs/write_text_file', { sessionId: 's1', path: '/boom', content: '' })
            .catch((e: unknown) => e),
        );
        replies.push(
          await client
            .request('session/request_permission', {
              sessionId: 's1',
              toolCall: { toolCallId: 't1' },
              options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }],
            })
            .catch((e: unknown) => e),
        );
        return { stopReason: 'end_turn' };
      },
      {
        handlers: {
          readTextFile: async (params, ctx) => {
            seen.push([params, ctx.rawParams, ctx.method, typeof ctx.requestId]);
            if (params.path === '/missing') throw new RequestError(-32002, 'Resource not found', { path: params.path });
            return { content: 'hello' };
          },
          writeTextFile: async () => {
            throw new Error('disk on fire');
          },
          requestPermission: async (params) => ({
            outcome: { outcome: 'selected', optionId: params.options[0]!.optionId },
          }),
        },
      },
    );
    await h.conn.initialize();
    await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    expect(seen[0]).toEqual([
      { sessionId: 's1', path: '/ok' },
      { sessionId: 's1', path: '/ok', unknownKey: 1 },
      'fs/read_text_file',
      'number',
    ]);
    expect(replies[0]).toEqual({ content: 'hello' });
    expect(replies[1]).toMatchObject({ code: -32002, message: 'Resource not found', data: { path: '/missing' } });
    expect(replies[2]).toMatchObject({ code: -32603, data: { details: 'disk on fire' } });
    expect(h.logs.some((l) => l.level === 'error' && l.msg === 'client handler failed')).toBe(true);
    expect(replies[3]).toEqual({ outcome: { outcome: 'selected', optionId: 'a' } });
  });

  it('unknown notifications go to onNotification; stray responses are dropped; the SDK never writes to the console', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const consoleLog = vi.spyOn(console, 'log');
    const h = setup(
      async ({ client }) => {
        await client.notify('_model_state_update', { model: 'x' });
        return { stopReason: 'end_turn' };
      },
      {
        onNotification: () => {
          throw new Error('listener bug');
        },
      },
    );
    await h.conn.initialize();
    h.a2c.write('{"jsonrpc":"2.0","id":999,"result":{}}\n'); // a response to nothing we sent
    h.a2c.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n');
    await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    expect(h.logs.filter((l) => l.msg === 'dropped a response to an unknown request').map((l) => l.data?.id)).toEqual([
      999,
      null,
    ]);
    expect(h.logs.some((l) => l.msg === 'onNotification threw')).toBe(true);
    expect(await h.conn.request('session/new', { cwd: '/', mcpServers: [] })).toMatchObject({ sessionId: 's1' });
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleLog).not.toHaveBeenCalled();
  });

  it('passes unknown notifications with their params', async () => {
    const h = setup(async ({ client }) => {
      await client.notify('_model_state_update', { model: 'x' });
      return { stopReason: 'end_turn' };
    });
    await h.conn.initialize();
    await h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    expect(h.notifications).toEqual([['_model_state_update', { model: 'x' }]]);
  });
});

describe('connectAgent: close causes (in-memory)', () => {
  const never: PromptScript = () => new Promise(() => {});

  /** Starts a prompt the agent never answers; resolves once it is on the wire. */
  async function pendingPrompt(h: Harness): Promise<{ settled: Promise<unknown> }> {
    await h.conn.initialize();
    const settled = h.conn.request('session/prompt', { sessionId: 's1', prompt: [] }).then(
      () => 'resolved?!',
      (e: unknown) => e,
    );
    while (!h.frames.some((f) => f.msg.method === 'session/prompt')) await new Promise((r) => setImmediate(r));
    return { settled };
  }

  it("stdout EOF → the pending request rejects with ConnectionClosedError('eof')", async () => {
    const h = setup(never);
    const { settled } = await pendingPrompt(h);
    h.a2c.end();
    const err = await settled;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as ConnectionClosedError).reason).toBe('eof');
    const info = await h.conn.closed;
    expect(info.cause).toBe('eof');
    expect(info.error).toBe(err);
    expect(h.conn.signal.aborted).toBe(true);
    expect(h.conn.signal.reason).toBe(err);
    expect(h.conn.isClosed).toBe(true);
    await expect(h.conn.request('session/new', {})).rejects.toBe(err);
    await expect(h.conn.notify('session/cancel', {})).rejects.toBe(err);
  });

  it("a stream error → ConnectionClosedError('stream_error') carrying the error", async () => {
    const h = setup(never);
    const { settled } = await pendingPrompt(h);
    h.a2c.destroy(new Error('read EIO'));
    const err = (await settled) as ConnectionClosedError;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.reason).toBe('stream_error');
    expect(err.details).toMatchObject({ cause: 'stream_error', error: 'read EIO' });
    expect(err.message).toMatch(/read EIO/);
    // The underlying error is the standard Error.cause.
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as Error).message).toBe('read EIO');
    expect((await h.conn.closed).streamError?.message).toBe('read EIO');
  });

  it("close() → ConnectionClosedError('closed'); idempotent; ends our output", async () => {
    const h = setup(never);
    const { settled } = await pendingPrompt(h);
    const ended = new Promise((r) => h.c2a.once('end', r));
    const c1 = h.conn.close();
    expect(h.conn.close()).toBe(c1);
    await c1;
    const err = (await settled) as ConnectionClosedError;
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect(err.reason).toBe('closed');
    expect((await h.conn.closed).cause).toBe('closed');
    await ended;
  });

  it('a response queued before EOF still resolves its request', async () => {
    const h = setup(async () => ({ stopReason: 'end_turn' }));
    await h.conn.initialize();
    const p = h.conn.request('session/prompt', { sessionId: 's1', prompt: [] });
    // End the agent's output right after its answer (the SDK agent writes it; we then end).
    await p;
    h.a2c.end();
    expect((await h.conn.closed).cause).toBe('eof');
  });
});

describe('connectAgent: raw agent frames (no SDK on the agent side)', () => {
  /** A scripted raw peer: read our lines from c2a, write agent lines to a2c. */
  function rawPeer(opts: Partial<ConnectAgentOptions>) {
    const a2c = new PassThrough();
    const c2a = new PassThrough();
    const lines = createInterface({ input: c2a })[Symbol.asyncIterator]();
    const next = async (): Promise<RawMessage> => JSON.parse((await lines.next()).value as string) as RawMessage;
    const conn = connectAgent({ streams: { input: a2c, output: c2a }, onSessionUpdate: () => {}, ...opts });
    cleanups.push(() => conn.close());
    const write = (m: unknown) => a2c.write(JSON.stringify(m) + '\n');
    return { conn, next, write, a2c };
  }

  it('real Hermes permission requests reach the handler (validated + raw) and get answered', async () => {
    const recorded = parseWireLog(readFileSync(TOOLS_FIXTURE, 'utf8')).filter(
      (l) => l.msg.method === 'session/request_permission',
    );
    expect(recorded.length).toBeGreaterThan(0);
    const got: unknown[] = [];
    const peer = rawPeer({
      handlers: {
        requestPermission: async (params, ctx) => {
          got.push(ctx.rawParams);
          return { outcome: { outcome: 'selected', optionId: params.options[0]!.optionId } };
        },
      },
    });
    const init = peer.conn.initialize();
    const req = await peer.next();
    peer.write({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: 1 } });
    await init;
    for (const r of recorded) {
      peer.write(r.msg);
      const answer = await peer.next();
      expect(answer).toEqual({
        jsonrpc: '2.0',
        id: r.msg.id,
        result: { outcome: { outcome: 'selected', optionId: 'allow_once' } },
      });
    }
    expect(got).toEqual(recorded.map((r) => r.msg.params));
  });

  it('a malformed response to a pending request fails it with RequestError(-32600) instead of hanging', async () => {
    const peer = rawPeer({});
    const init = peer.conn.initialize();
    const req = await peer.next();
    peer.write({ jsonrpc: '2.0', id: req.id }); // neither result nor error
    const err = await init.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(err).toMatchObject({ code: -32600, method: 'initialize' });
    expect(peer.conn.isClosed).toBe(false);
  });
});
