/**
 * Fault paths of `talaria acp`: an agent that cannot start (a clear initialize error, stdout
 * stays ACP, the process still exits cleanly), session/cancel and `$/cancel_request` mid-turn
 * (the turn ends cancelled, the session stays usable), all frames schema-valid.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { fakeCmd, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { HERMES, editorEnv, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } };

describe.concurrent('talaria acp fault paths', () => {
  it('an agent that dies during initialize: initialize fails with a clear error; stdout stays ACP; exit 0 when the editor leaves', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-fault');
    const ed = startEditor(['--agent-cmd', fakeCmd('exit-during-initialize')], { cwd, env });
    const err = await ed.request('initialize', INIT).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data?: unknown },
    );
    // The clear error: a JSON-RPC internal error that says the agent exited, with its code and what it printed.
    expect(err).toMatchObject({
      code: -32603,
      message: 'agent exited with code 2; stderr: fatal: config.yaml is invalid (line 3)',
      data: { code: 'connection_closed' },
    });
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames);
  });

  it('an agent without credentials: initialize answers, session/new answers ACP auth_required (-32000) saying how to sign in', async () => {
    const { env, home } = editorEnv();
    const cwd = tempDir('acp-fault');
    const empty = join(home, 'hermes-empty');
    mkdirSync(empty);
    const ed = startEditor(['--agent-cmd', `env HERMES_HOME=${empty} ${HERMES} acp`], { cwd, env });
    const init = await ed.request<any>('initialize', INIT);
    expect(Array.isArray(init.authMethods)).toBe(true);
    const err = await ed.request('session/new', { cwd, mcpServers: [] }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data?: { authMethods?: unknown[] } },
    );
    expect(err).toMatchObject({ code: -32000, message: expect.stringContaining('hermes setup') });
    expect(Array.isArray(err!.data?.authMethods)).toBe(true);
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames);
  });

  it('an agent with garbage on stdout: none of it reaches the editor, the turn works', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-fault');
    const ed = startEditor(['--agent-cmd', fakeCmd('garbage-stdout')], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    expect(
      (await ed.request<any>('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] }))
        .stopReason,
    ).toBe('end_turn');
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames);
  });

  it('session/cancel and $/cancel_request mid-turn end the turn cancelled; the next prompt runs', async () => {
    // A slow turn of a minute (600 × 100 ms): the cancel lands mid-turn however loaded the machine is; it never runs out.
    const { env } = editorEnv({ TALARIA_DEMO_CHUNK_DELAY_MS: '30', TALARIA_DEMO_SLOW_CHUNKS: '600' });
    const cwd = tempDir('acp-fault');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const chunksOf = () =>
      ed.updates.filter((u) => u.sessionId === s.sessionId && u.update.sessionUpdate === 'agent_message_chunk').length;

    const turn = ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'slow' }],
    });
    await ed.until(() => chunksOf() > 0, 'the first chunk');
    await ed.notify('session/cancel', { sessionId: s.sessionId });
    expect((await turn).stopReason).toBe('cancelled');

    const before = chunksOf();
    const ac = new AbortController();
    const second = ed.conn.agent.request(
      'session/prompt',
      { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'slow' }] },
      { cancellationSignal: ac.signal },
    );
    const settled = second.then(
      (r) => ({ ok: r as { stopReason: string } }),
      (e: unknown) => ({ err: e as { code: number } }),
    );
    await ed.until(() => chunksOf() > before, 'a chunk of the second turn');
    ac.abort();
    const out = await settled;
    // The SDK either takes the cancelled answer or rejects with "request cancelled" (-32800).
    if ('ok' in out) expect(out.ok.stopReason).toBe('cancelled');
    else expect(out.err.code).toBe(-32800);
    await ed.until(
      () => ed.frames.some((f) => f.dir === 'agent->client' && f.msg.id === 3 && f.msg.method === undefined),
      'the answer to the cancelled prompt',
    );
    const answer = ed.frames.find((f) => f.dir === 'agent->client' && f.msg.id === 3 && f.msg.method === undefined)!
      .msg as { result?: { stopReason?: string } };
    expect(answer.result?.stopReason).toBe('cancelled');

    expect(
      (await ed.request<any>('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hello' }] }))
        .stopReason,
    ).toBe('end_turn');
    await ed.close();
    expectValidWire(ed.frames);
  });
});

describe('talaria acp pass-through', () => {
  it('unknown update kinds, _meta, extension methods and notifications travel verbatim (sessionId mapped)', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-ext');
    const ed = startEditor(['--agent-cmd', fakeCmd('extension-agent')], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    expect(await ed.request<any>('_vendor/ping', { sessionId: s.sessionId, x: [1, 2] })).toMatchObject({
      pong: { x: [1, 2] },
    });
    const pong = ed.frames.find((f) => f.dir === 'agent->client' && (f.msg.result as any)?.pong)!;
    expect((pong.msg.result as any)._meta).toEqual({ vendor: 'x' });
    await ed.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    const mine = ed.frames
      .filter((f) => f.dir === 'agent->client' && (f.msg.params as any)?.sessionId === s.sessionId)
      .map((f) => f.msg as any);
    expect(mine.find((m) => m.params.update?.sessionUpdate === 'vendor_progress').params.update).toEqual({
      sessionUpdate: 'vendor_progress',
      percent: 50,
      _meta: { vendor: 'p' },
    });
    const chunk = mine.find((m) => m.params.update?.sessionUpdate === 'agent_message_chunk');
    expect(chunk.params).toEqual({
      sessionId: s.sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm-1',
        content: { type: 'text', text: 'ok' },
        _meta: { vendor: 'chunk' },
      },
      _meta: { vendor: 'params' },
    });
    expect(mine.find((m) => m.method === '_vendor/note').params).toEqual({ sessionId: s.sessionId, note: 'hello' });
    const answer = ed.frames.filter((f) => f.dir === 'agent->client' && (f.msg.result as any)?.stopReason).pop()!;
    expect((answer.msg.result as any)._meta).toEqual({ vendor: 'answer' });
    await ed.close();
    expectValidWire(ed.frames, { except: (v) => v.path.startsWith('/params/update') });
  });
});
