/**
 * The Hermes emulator against the first recorded 0.18.2 fixtures, and its quirks one by one.
 * Comparisons with the side-by-side recordings of real Hermes: hermes/real-*.test.ts.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driveFixture, loadFixture, shapes, transcript } from './hermes/fixture-driver.js';
import { openSession, text, type Msg } from './hermes/test-client.js';
import { AUTH_ERROR } from './hermes/config.js';
import { chunkText, CONFIG, kinds, prompt, upd, useEnv } from './hermes/test-env.js';

const { root: ROOT, makeHome, makeWs, start, next } = useEnv();

const FIXTURE_MAIN_SID = '217209e8-e55d-4cbb-aad7-640f0207efd0';

describe('Hermes emulator against the recorded 0.18.2 fixtures', () => {
  it('reproduces main.ndjson, then reload.ndjson from a new process on the same home', async () => {
    const home = makeHome();
    const ws = makeWs({ 'notes.txt': 'first note\n' });
    // That recording's fake model masked the key in its 401 body.
    const a = start(home, {
      HERMES_EMU_TITLE: 'Fake title',
      HERMES_EMU_AUTH_ERROR: 'Incorrect API key provided: sk-local***',
    });
    const main = await driveFixture(a, loadFixture('main'), { ws });
    expect(shapes(main.agent)).toEqual(shapes(main.fixture));
    expect(transcript(main.agent, ws)).toEqual(transcript(main.fixture));
    // Live ids: Hermes' own tc-<12 hex>; agent→client request ids start at 0.
    const calls = main.agent.filter((m) => upd(m)?.sessionUpdate === 'tool_call').map((m) => upd(m)!.toolCallId);
    expect(calls.length).toBe(3);
    for (const id of calls) expect(id).toMatch(/^tc-[0-9a-f]{12}$/);
    const perm = main.agent.find((m) => m.method === 'session/request_permission')!;
    expect(perm.id).toBe(0);
    expect(perm.params.toolCall.toolCallId).toMatch(/^edit-approval-\d+$/);
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('written by fake model\n');
    expect(main.agent.some((m) => upd(m) && 'messageId' in upd(m)!)).toBe(false);
    const sid = main.agent.find((m) => m.id === 2)!.result.sessionId as string;
    expect(await a.close()).toBe(0);

    const b = start(home);
    const reload = await driveFixture(b, loadFixture('reload'), { ws, sessions: new Map([[FIXTURE_MAIN_SID, sid]]) });
    expect(shapes(reload.agent)).toEqual(shapes(reload.fixture));
    expect(transcript(reload.agent, ws)).toEqual(transcript(reload.fixture));
    expect(reload.agent.find((m) => m.id === 2)!.result.sessions[0]).toMatchObject({
      sessionId: sid,
      title: 'Fake title',
      cwd: ws,
    });
    const replayIds = reload.agent.filter((m) => upd(m)?.sessionUpdate === 'tool_call').map((m) => upd(m)!.toolCallId);
    expect(replayIds).toEqual(['call_write_3', 'call_write_3']); // provider ids, load then resume
  });

  it('reproduces tools.ndjson: edits, dont_ask, a denied dangerous command, todo plan, thinking', async () => {
    const ws = makeWs({ 'notes.txt': 'n\n', 'out.txt': 'written by fake model\n' });
    mkdirSync(join(ws, 'junkdir'));
    const c = start(makeHome());
    const r = await driveFixture(c, loadFixture('tools'), { ws });
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    expect(transcript(r.agent, ws)).toEqual(transcript(r.fixture));
    const reqs = r.agent.filter((m) => m.method === 'session/request_permission');
    expect(reqs.map((m) => m.id)).toEqual([0, 1]);
    expect(reqs[1]!.params.toolCall.toolCallId).toMatch(/^perm-check-\d+$/);
    expect(existsSync(join(ws, 'junkdir'))).toBe(true); // denied: not run
    expect(readFileSync(join(ws, 'out2.txt'), 'utf8')).toBe('second file\n');
  });

  it('reproduces profile.ndjson and noauth.ndjson', async () => {
    const ws = makeWs();
    const p = await driveFixture(start(makeHome()), loadFixture('profile'), { ws });
    expect(shapes(p.agent)).toEqual(shapes(p.fixture));
    expect(transcript(p.agent, ws)).toEqual(transcript(p.fixture));
    const n = await driveFixture(start(makeHome(null)), loadFixture('noauth'), { ws });
    expect(n.agent).toEqual(n.fixture);
  });
});

describe('Hermes emulator quirks (0.18.2)', () => {
  it('serves requests pipelined before the initialize response; protocolVersion is always 1', async () => {
    const c = start(makeHome());
    c.sendRaw(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 7 } }) +
        '\n' +
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: makeWs(), mcpServers: [] } }) +
        '\n',
    );
    const init = await c.waitFor((m) => m.id === 1);
    const made = await c.waitFor((m) => m.id === 2);
    const recorded = loadFixture('main').find((l) => l.msg.id === 1 && l.dir === 'agent->client')!.msg;
    expect(init.result).toEqual(recorded.result);
    expect(init.result.agentCapabilities.mcpCapabilities).toBeUndefined();
    expect(made.result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.result.configOptions).toBeUndefined();
  });

  it('sends available_commands_update and usage_update after session/new, or before with HERMES_EMU_UPDATES_FIRST=1', async () => {
    for (const [env, expected] of [
      [{}, ['response', 'available_commands_update', 'usage_update']],
      [{ HERMES_EMU_UPDATES_FIRST: '1' }, ['available_commands_update', 'usage_update', 'response']],
    ] as const) {
      const c = start(makeHome(), env);
      await c.call('initialize', { protocolVersion: 1 });
      const mark = c.mark();
      await c.call('session/new', { cwd: makeWs(), mcpServers: [] });
      await c.waitFor((m) => upd(m)?.sessionUpdate === 'usage_update', 'usage_update', mark);
      expect(kinds(c.since(mark))).toEqual(expected);
    }
  });

  it('usage is cumulative per agent instance and absent on slash commands and errors; a 401 poisons later prompts until /reset; the title follows the first response', async () => {
    const c = start(makeHome());
    const { id } = await openSession(c, makeWs());
    const first = await prompt(c, id, 'hello there');
    expect(first.res.result.usage).toEqual({
      cachedReadTokens: 0,
      inputTokens: 1200,
      outputTokens: 34,
      thoughtTokens: 0,
      totalTokens: 1234,
    });
    const title = await c.waitFor((m) => upd(m)?.sessionUpdate === 'session_info_update', 'title');
    expect(c.frames.indexOf(title)).toBeGreaterThan(c.frames.indexOf(first.res));
    expect(upd(title)).toMatchObject({
      title: 'Hello there',
      _meta: { hermes: { sessionProvenance: { acpSessionId: id } } },
    });
    expect(upd(title)!.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    expect((await prompt(c, id, 'again')).res.result.usage.totalTokens).toBe(2468);
    const slash = await prompt(c, id, '/version');
    expect(chunkText(slash.frames)).toBe('Hermes Agent v0.18.2');
    expect(slash.res.result).toEqual({ stopReason: 'end_turn' });
    const err = await prompt(c, id, 'ERROR boom');
    expect(chunkText(err.frames)).toBe('Error: boom');
    expect(err.res.result).toEqual({ stopReason: 'end_turn' });
    const auth = await prompt(c, id, 'AUTHFAIL now');
    expect(chunkText(auth.frames)).toBe(`HTTP 401: ${AUTH_ERROR}`);
    expect(auth.res.result.usage).toBeUndefined();
    // The failed message stays: the next prompt is merged into it and fails the same way.
    const again = await prompt(c, id, 'hi');
    expect(chunkText(again.frames)).toBe(`HTTP 401: ${AUTH_ERROR}`);
    expect(again.res.result.usage).toBeUndefined();
    expect(chunkText((await prompt(c, id, '/context')).frames)).toMatch(
      /^Conversation: 5 messages\n  user: 3, assistant: 2,/,
    );
    await prompt(c, id, '/reset');
    expect((await prompt(c, id, 'hi')).res.result.usage.totalTokens).toBe(3702);
  });

  it('tools act for real on the session cwd; read and write completions are never sent live', async () => {
    const ws = makeWs({ 'notes.txt': 'the notes\n' });
    const c = start(makeHome());
    const { id } = await openSession(c, ws);
    c.answer('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'deny' } }));
    const denied = await prompt(c, id, 'TOOLS: read notes, echo, write out.txt');
    expect(existsSync(join(ws, 'out.txt'))).toBe(false);
    const updates = denied.frames.map(upd).filter(Boolean) as Msg[];
    const [read, term, write] = updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(read!.status).toBeUndefined();
    expect(updates.filter((u) => u.sessionUpdate === 'tool_call_update').map((u) => u.toolCallId)).toEqual([
      term!.toolCallId,
    ]);
    expect(updates.find((u) => u.sessionUpdate === 'tool_call_update')!.title).toBeUndefined();
    expect(write!.title).toBe(`write: ${join(ws, 'out.txt')}`);
    expect(chunkText(denied.frames).startsWith('\n\nAll ')).toBe(true);
    // Replay pairs every call, with provider ids and the real results.
    const mark = c.mark();
    await c.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    const replay = c.updates(mark);
    const done = replay.filter((u) => u.sessionUpdate === 'tool_call_update');
    expect(done.map((u) => u.toolCallId)).toEqual(['call_read_1', 'call_terminal_2', 'call_write_3']);
    expect(done[0]!.content[0].content.text).toContain('1|the notes');
    expect(done[1]!.content[0].content.text).toContain('hello-from-terminal');
    expect(done[2]).toMatchObject({ status: 'failed' });
  });

  it('dangerous commands: deny, unknown option, error, cancelled and timeout block; allow_once runs; allow_session stops asking', async () => {
    const ws = makeWs();
    const c = start(makeHome());
    const { id } = await openSession(c, ws);
    const answers: Array<(id: number) => void> = [
      (i) => c.send({ jsonrpc: '2.0', id: i, result: { outcome: { outcome: 'selected', optionId: 'deny' } } }),
      (i) => c.send({ jsonrpc: '2.0', id: i, result: { outcome: { outcome: 'selected', optionId: 'yes-please' } } }),
      (i) => c.send({ jsonrpc: '2.0', id: i, error: { code: -32603, message: 'client broke' } }),
      (i) => c.send({ jsonrpc: '2.0', id: i, result: { outcome: { outcome: 'cancelled' } } }),
    ];
    for (const answer of answers) {
      mkdirSync(join(ws, 'junkdir'), { recursive: true });
      const mark = c.mark();
      const pending = prompt(c, id, 'DANGER: remove junkdir');
      const req = await c.waitFor((m) => m.method === 'session/request_permission', 'permission', mark);
      expect(req.params.options.map((o: Msg) => `${o.optionId}:${o.kind}`)).toEqual([
        'allow_once:allow_once',
        'allow_session:allow_always',
        'allow_always:allow_always',
        'deny:reject_once',
        'deny_always:reject_always',
      ]);
      answer(req.id);
      const { frames } = await pending;
      const fail = frames.map(upd).find((u) => u?.sessionUpdate === 'tool_call_update')!;
      expect(fail.status).toBe('failed');
      expect(fail.content[0].content.text).toMatch(/^terminal failed: BLOCKED: User denied this command/);
      expect(existsSync(join(ws, 'junkdir'))).toBe(true);
    }
    c.answer('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }));
    const ran = await prompt(c, id, 'DANGER: remove junkdir');
    expect(ran.frames.map(upd).find((u) => u?.sessionUpdate === 'tool_call_update')!.status).toBe('completed');
    expect(existsSync(join(ws, 'junkdir'))).toBe(false);
    c.answer('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_session' } }));
    await prompt(c, id, 'RUN rm -r ./nothing-here-1');
    const second = await prompt(c, id, 'RUN rm -r ./nothing-here-2');
    expect(second.frames.some((m) => m.method === 'session/request_permission')).toBe(false);

    const t = start(makeHome(), { HERMES_EMU_PERMISSION_TIMEOUT_MS: '30' });
    const s = await openSession(t, ws);
    mkdirSync(join(ws, 'junkdir'), { recursive: true });
    const timedOut = await prompt(t, s.id, 'DANGER: remove junkdir');
    expect(timedOut.frames.map(upd).find((u) => u?.sessionUpdate === 'tool_call_update')!.status).toBe('failed');
    expect(existsSync(join(ws, 'junkdir'))).toBe(true);
  });

  it('edit approval follows the mode; sensitive paths ask in every mode; set_config_option maps the policy', async () => {
    const ws = makeWs();
    const n = next();
    const fakeTmp = join(ROOT, `tmp${n}`);
    mkdirSync(fakeTmp);
    const c = start(makeHome(), { TMPDIR: fakeTmp });
    const { id } = await openSession(c, ws);
    const asked: string[] = [];
    c.answer('session/request_permission', (p) => {
      asked.push(p.toolCall.toolCallId);
      return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
    });
    await c.call('session/set_mode', { sessionId: id, modeId: 'accept_edits' });
    const auto = await prompt(c, id, 'WRITE a.txt');
    expect(asked).toEqual([]);
    expect(auto.frames.map(upd).find((u) => u?.sessionUpdate === 'tool_call')!.content[0].type).toBe('diff');
    await prompt(c, id, `WRITE ${join(fakeTmp, 'scratch.txt')}`);
    expect(asked).toEqual([]);
    await prompt(c, id, `WRITE ${join(ROOT, `outside${n}.txt`)}`);
    await prompt(c, id, 'WRITE .git/config');
    expect(asked).toEqual(['edit-approval-1', 'edit-approval-2']);
    expect(
      await c.call('session/set_config_option', { sessionId: id, configId: 'edit_approval_policy', value: 'session' }),
    ).toEqual({ configOptions: [] });
    await prompt(c, id, `WRITE ${join(ROOT, `outside${n}b.txt`)}`);
    await prompt(c, id, 'WRITE .env');
    expect(asked).toEqual(['edit-approval-1', 'edit-approval-2', 'edit-approval-3']);
    expect(readFileSync(join(ws, '.env'), 'utf8')).toBe('written by fake model\n');
    expect(await c.call('session/set_mode', { sessionId: id, modeId: 'bogus' })).toEqual({});
    await prompt(c, id, 'WRITE b.txt');
    expect(asked).toHaveLength(4); // coerced to default: asks even in the workspace
  });

  it('mode is not persisted across restarts; sessions are restored transparently in a new process', async () => {
    const home = makeHome();
    const ws = makeWs();
    const a = start(home);
    const { id } = await openSession(a, ws);
    await a.call('session/set_mode', { sessionId: id, modeId: 'dont_ask' });
    await prompt(a, id, 'hello there');
    await a.close();
    const b = start(home);
    await b.call('initialize', { protocolVersion: 1 });
    const again = await prompt(b, id, 'hello there'); // no load first
    expect(again.res.result.usage.totalTokens).toBe(1234); // a new agent instance
    const loaded = await b.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    expect(loaded.modes.currentModeId).toBe('default');
  });

  it('a prompt sent mid-turn is queued, then runs inside the running request, whose response comes last', async () => {
    const ws = makeWs();
    const c = start(makeHome());
    const { id } = await openSession(c, ws);
    const mark = c.mark();
    const first = c.request('session/prompt', { sessionId: id, prompt: text('DANGER: remove junkdir') });
    const req = await c.waitFor((m) => m.method === 'session/request_permission', 'permission', mark);
    const queued = await prompt(c, id, 'hello there');
    expect(chunkText(queued.frames)).toBe('Queued for the next turn. (1 queued)');
    expect(queued.res.result).toEqual({ stopReason: 'end_turn' });
    c.send({ jsonrpc: '2.0', id: req.id, result: { outcome: { outcome: 'selected', optionId: 'deny' } } });
    const res = await first;
    const after = c.since(c.frames.indexOf(queued.res) + 1, c.frames.indexOf(res) + 1);
    expect(kinds(after).filter((k) => k !== 'agent_message_chunk')).toEqual([
      'tool_call_update',
      'user_message_chunk',
      'usage_update',
      'usage_update',
      'response',
    ]);
    expect(upd(after.find((m) => upd(m)?.sessionUpdate === 'user_message_chunk')!)!.content.text).toBe('hello there');
    expect(chunkText(after)).toBe('\n\nDangerous step finished.Hello from the fake model! You said: hello there');
    // The response reports usage as it stood when its own turn ended: the queued turn comes later.
    expect(res.result.usage.totalTokens).toBe(2 * 1234);
    expect((await prompt(c, id, 'hello again')).res.result.usage.totalTokens).toBe(4 * 1234);
  });

  it('an overflow shrinks the context size and leaves the user message; HERMES_EMU_OVERFLOW=lenient answers the merged next prompt', async () => {
    const c = start(makeHome(), { HERMES_EMU_OVERFLOW: 'lenient' });
    const { id } = await openSession(c, makeWs());
    const o = await prompt(c, id, 'OVERFLOW now');
    expect(chunkText(o.frames)).toBe('Context length exceeded (11 tokens). Cannot compress further.');
    expect(o.frames.map(upd).find((u) => u?.sessionUpdate === 'usage_update')!.size).toBe(8192);
    expect(o.res.result).toEqual({ stopReason: 'end_turn' });
    expect(chunkText((await prompt(c, id, 'hi')).frames)).toBe(
      'Hello from the fake model! You said: OVERFLOW now\n\nhi',
    );
  });

  it('by default (as real 0.18.2): later prompts overflow, /compact cannot help, /reset recovers; a later process fails to compress under the learned limit', async () => {
    const home = makeHome();
    const ws = makeWs();
    const c = start(home);
    const { id } = await openSession(c, ws);
    await prompt(c, id, 'OVERFLOW now');
    expect(chunkText((await prompt(c, id, 'hi')).frames)).toBe(
      'Context length exceeded (13 tokens). Cannot compress further.',
    );
    expect(chunkText((await prompt(c, id, '/compact')).frames)).toMatch(/^Context compressed: 1 -> 1 messages\n/);
    expect(chunkText((await prompt(c, id, '/reset')).frames)).toBe('Conversation history cleared.');
    const ok = await prompt(c, id, 'hi');
    expect(chunkText(ok.frames)).toBe('Hello from the fake model! You said: hi');
    expect(ok.frames.map(upd).find((u) => u?.sessionUpdate === 'usage_update')!.size).toBe(8192); // /reset keeps the learned size
    await prompt(c, id, 'OVERFLOW again');
    await c.close();
    expect(readFileSync(join(home, 'context_length_cache.yaml'), 'utf8')).toBe(
      'fake-model@http://127.0.0.1:9/v1: 8192\n',
    );
    const b = start(home, { HERMES_EMU_OVERFLOW: 'real' });
    await b.call('initialize', { protocolVersion: 1 });
    await b.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    expect(chunkText((await prompt(b, id, 'hello after reload')).frames)).toMatch(
      /^Error: Auxiliary compression model fake-model has a context window of 8,192 tokens, which is below the minimum 64,000 required by Hermes Agent\./,
    );
  });

  it('MAXITER prints a plain non-JSON line on stdout mid-turn', async () => {
    const c = start(makeHome());
    const { id } = await openSession(c, makeWs());
    const mark = c.mark();
    const { res } = await prompt(c, id, 'MAXITER go');
    const line = c.noise.find((n) => n.line.includes('Reached maximum iterations'))!;
    expect(line.line).toBe('⚠️  Reached maximum iterations (90). Requesting summary...');
    expect(line.at).toBeGreaterThan(mark);
    expect(line.at).toBeLessThan(c.frames.indexOf(res));
    expect(res.result.stopReason).toBe('end_turn');
  });

  it('images and resource links are accepted; the reply says whether images were forwarded (supports_vision) or described', async () => {
    const image = [
      { type: 'text', text: 'look' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ];
    const plain = start(makeHome());
    const a = await openSession(plain, makeWs());
    expect(chunkText((await prompt(plain, a.id, image)).frames)).toContain('Image described by the auxiliary model');
    const vision = start(makeHome(CONFIG + '  supports_vision: true\n'));
    const b = await openSession(vision, makeWs());
    expect(chunkText((await prompt(vision, b.id, image)).frames)).toContain('Image forwarded to the model');
    const ws = makeWs({ 'spec.md': '# spec\n' });
    const link = [
      { type: 'text', text: 'see' },
      { type: 'resource_link', uri: `file://${join(ws, 'spec.md')}`, name: 'spec.md' },
    ];
    expect(chunkText((await prompt(vision, b.id, link)).frames)).toBe(
      'Hello from the fake model! You said: see (attachments: spec.md)',
    );
  });

  it('MCP servers: calls while registered, dropped by set_model, re-registered by session/load', async () => {
    const ws = makeWs();
    const c = start(makeHome());
    const servers = [{ name: 'files', command: 'node', args: ['srv.js'], env: [] }];
    const { id } = await openSession(c, ws, servers);
    const turn = (await prompt(c, id, 'MCP')).frames.map(upd);
    const call = turn.find((u) => u?.sessionUpdate === 'tool_call')!;
    expect(call).toMatchObject({ kind: 'other', title: 'mcp__files__echo', locations: [], rawInput: { text: 'hi' } });
    expect(call.content[0].content.text).toBe('{\n  "text": "hi"\n}');
    const done = turn.find((u) => u?.sessionUpdate === 'tool_call_update')!;
    expect(done.rawOutput).toBe(done.content[0].content.text);
    expect(done.rawOutput).toMatch(
      /^<untrusted_tool_result source="mcp__files__echo">\n[\s\S]*\n\n\{"result": "files-echo: hi", "structuredContent": \{"result": "files-echo: hi"\}\}\n<\/untrusted_tool_result>$/,
    );
    expect(await c.call('session/set_model', { sessionId: id, modelId: 'custom:fake-model' })).toEqual({});
    expect(chunkText((await prompt(c, id, 'MCP')).frames)).toBe('No MCP tools are available in this session.');
    await c.call('session/load', { sessionId: id, cwd: ws, mcpServers: servers });
    expect((await prompt(c, id, 'MCP')).frames.some((m) => upd(m)?.title === 'mcp__files__echo')).toBe(true);
  });

  it('slash commands answer with one chunk, no model call, no usage; /compact keeps the tail and makes the replay start with the summary', async () => {
    const ws = makeWs();
    const c = start(makeHome());
    const { id } = await openSession(c, ws);
    for (const t of ['hello there', 'one', 'two', 'three']) await prompt(c, id, t);
    for (const [cmd, expected] of [
      ['/model', 'Current model: fake-model\nProvider: custom'],
      ['/tools', /^Available tools \(15\):\n  delegate_task: /],
      [
        '/context',
        /^Conversation: 8 messages\n  user: 4, assistant: 4, tool: 0, system: 0\n[\s\S]*\nCompression: ~[\d,]+ tokens until threshold \(~98,304, 75%\)\./,
      ],
      ['/queue later please', 'Queued for the next turn. (1 queued)'],
      ['/compact', /^Context compressed: 8 -> 7 messages/],
    ] as const) {
      const r = await prompt(c, id, cmd);
      expect(r.frames.filter((m) => upd(m)?.sessionUpdate === 'agent_message_chunk')).toHaveLength(1);
      expect(chunkText(r.frames)).toMatch(expected);
      expect(r.res.result).toEqual({ stopReason: 'end_turn' });
    }
    const mark = c.mark();
    await c.call('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    expect(chunkText(c.since(mark)).startsWith('[PRIOR CONTEXT — ')).toBe(true);
    // The /queue'd text runs inside the next turn.
    const now = await prompt(c, id, 'now');
    expect(chunkText(now.frames, 'user_message_chunk')).toBe('later please');
    expect(chunkText(await prompt(c, id, '/reset').then((r) => r.frames))).toBe('Conversation history cleared.');
    expect((await c.call('session/list', { cwd: ws })).sessions).toEqual([]);
  });
});
