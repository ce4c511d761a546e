import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { steerContext } from '../../src/thread/injected.js';
import { rpcError, spawnDemo, tempDir, textOf, type DemoPeer } from './harness.js';

const text = (t: string): acp.ContentBlock[] => [{ type: 'text', text: t }];

describe('demo agent: handshake, default turn, config, error paths', () => {
  let peer: DemoPeer;
  let cwd: string;

  beforeAll(async () => {
    cwd = tempDir('basics');
    peer = await spawnDemo({ TALARIA_DEMO_HOME: tempDir('basics-home') });
  });
  afterEach(() => expect(peer.violations.splice(0)).toEqual([]));
  afterAll(async () => {
    if (peer.child.exitCode === null) await peer.end();
  });

  it('initialize advertises the demo identity and capabilities', async () => {
    const init = peer.frames.find((f) => f.dir === 'agent->client' && f.msg.id === 0 && 'result' in f.msg);
    const r = init?.msg.result as acp.InitializeResponse;
    expect(r.protocolVersion).toBe(1);
    expect(r.agentInfo).toMatchObject({ name: 'talaria-demo', title: 'Talaria demo agent (offline, scripted)' });
    expect(r.agentInfo?.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      sessionCapabilities: { list: {}, close: {} },
    });
  });

  it('session/new returns model and mode selects, then commands and usage', async () => {
    const before = peer.updates.length;
    const s = await peer.newSession(cwd);
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const model = s.configOptions?.find((o) => o.id === 'model');
    const mode = s.configOptions?.find((o) => o.id === 'mode');
    expect(model).toMatchObject({ category: 'model', type: 'select', currentValue: 'demo-fast' });
    expect(mode).toMatchObject({ category: 'mode', type: 'select', currentValue: 'ask' });
    const values = (o: typeof model): string[] =>
      o && o.type === 'select' ? (o.options as acp.SessionConfigSelectOption[]).map((x) => x.value) : [];
    expect(values(model)).toEqual(['demo-fast', 'demo-thorough']);
    expect(values(mode)).toEqual(['ask', 'auto']);
    for (const o of (model?.type === 'select' ? model.options : []) as acp.SessionConfigSelectOption[])
      expect(o.name).toMatch(/demo/i);
    const kinds = peer.of(s.sessionId, before).map((u) => u.sessionUpdate);
    expect(kinds).toEqual(['available_commands_update', 'usage_update']);
    const cmds = peer.of(s.sessionId, before)[0];
    expect(cmds?.sessionUpdate === 'available_commands_update' && cmds.availableCommands.map((c) => c.name)).toContain(
      'help',
    );
    // The notifications follow the response on the wire.
    const respIdx = peer.frames.findIndex(
      (f) =>
        f.dir === 'agent->client' && (f.msg.result as { sessionId?: string } | undefined)?.sessionId === s.sessionId,
    );
    const cmdIdx = peer.frames.findIndex(
      (f) =>
        f.dir === 'agent->client' &&
        f.msg.method === 'session/update' &&
        (f.msg.params as acp.SessionNotification).sessionId === s.sessionId,
    );
    expect(respIdx).toBeGreaterThanOrEqual(0);
    expect(cmdIdx).toBeGreaterThan(respIdx);
  });

  it('a default prompt streams thoughts then a reply, ends end_turn with usage, then titles the session', async () => {
    const s = await peer.newSession(cwd);
    const from = peer.updates.length;
    const r = await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text('hello there'),
    });
    expect(r.stopReason).toBe('end_turn');
    const usage = (r as { usage?: { inputTokens: number; outputTokens: number; totalTokens: number } }).usage;
    expect(usage?.inputTokens).toBeGreaterThan(0);
    expect(usage?.outputTokens).toBeGreaterThan(0);
    expect(usage?.totalTokens).toBe((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0));

    const ups = peer.of(s.sessionId, from);
    const kinds = ups.map((u) => u.sessionUpdate);
    const firstMsg = kinds.indexOf('agent_message_chunk');
    expect(kinds.indexOf('agent_thought_chunk')).toBe(0);
    expect(firstMsg).toBeGreaterThan(0);
    expect(kinds.lastIndexOf('agent_thought_chunk')).toBeLessThan(firstMsg);
    expect(kinds.filter((k) => k === 'agent_message_chunk').length).toBeGreaterThan(3); // deltas, not one blob
    for (const u of ups)
      if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk')
        expect(u.messageId).toBeTruthy();
    expect(textOf(ups, 'agent_thought_chunk')).toContain('Thinking about: "hello there"');
    const reply = textOf(ups);
    expect(reply).toContain('Talaria demo agent');
    expect(reply).toContain('hello there');
    for (const k of ['tour', 'read FILE', 'edit FILE', 'run CMD', 'plan', 'slow', 'fail', 'refuse'])
      expect(reply).toContain(k);
    expect(reply.indexOf('tour')).toBeLessThan(reply.indexOf('read FILE')); // the tour is the first suggestion
    const info = ups.find((u) => u.sessionUpdate === 'session_info_update');
    expect(info && info.sessionUpdate === 'session_info_update' && info.title).toContain('hello there');
    const usageUpd = ups.filter((u) => u.sessionUpdate === 'usage_update');
    expect(usageUpd).toHaveLength(1);
    expect(usageUpd[0]).toMatchObject({ used: usage?.totalTokens, size: 128000 });

    // Usage is per turn; usage_update.used accumulates; the title is set only once.
    const from2 = peer.updates.length;
    const r2 = await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text('again'),
    });
    const u2 = (r2 as { usage?: { totalTokens: number } }).usage;
    const used2 = peer.of(s.sessionId, from2).find((u) => u.sessionUpdate === 'usage_update');
    expect(used2).toMatchObject({ used: (usage?.totalTokens ?? 0) + (u2?.totalTokens ?? 0) });
    expect(peer.of(s.sessionId, from2).some((u) => u.sessionUpdate === 'session_info_update')).toBe(false);
    // Two turns never share a messageId.
    const ids = (xs: acp.SessionUpdate[]): Set<unknown> =>
      new Set(xs.flatMap((u) => ('messageId' in u ? [u.messageId] : [])));
    const second = ids(peer.of(s.sessionId, from2));
    for (const id of ids(ups)) expect(second.has(id)).toBe(false);
  });

  it('acknowledges images in the prompt', async () => {
    const s = await peer.newSession(cwd);
    const from = peer.updates.length;
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mimeType: 'image/png', data: png },
      ],
    });
    expect(textOf(peer.of(s.sessionId, from))).toContain('received 1 image');
  });

  it("answers the user's words, not Talaria's context in front of them (a resent steer); a keyword after it still works", async () => {
    const s = await peer.newSession(cwd);
    let from = peer.updates.length;
    const steered = steerContext('slow', 'Chunk 1 of 2000 from the slow demo.');
    await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text(`${steered}\n\ntyped correction`),
    });
    const reply = textOf(peer.of(s.sessionId, from));
    expect(reply).toContain('You said: "typed correction".');
    expect(reply).not.toContain('[Talaria]');
    from = peer.updates.length;
    await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text(`${steered}\n\n/help`),
    });
    expect(textOf(peer.of(s.sessionId, from))).toContain('Try one of these prompts');
  });

  it('session/set_config_option switches model and mode, and rejects bad input', async () => {
    const s = await peer.newSession(cwd);
    const r = await peer.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId: s.sessionId,
      configId: 'model',
      value: 'demo-thorough',
    });
    expect(r.configOptions.find((o) => o.id === 'model')?.currentValue).toBe('demo-thorough');
    const r2 = await peer.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId: s.sessionId,
      configId: 'mode',
      value: 'auto',
    });
    expect(r2.configOptions.find((o) => o.id === 'mode')?.currentValue).toBe('auto');
    expect(r2.configOptions.find((o) => o.id === 'model')?.currentValue).toBe('demo-thorough');
    // The selected model shows in the next turn.
    const from = peer.updates.length;
    await peer.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text('hi') });
    expect(textOf(peer.of(s.sessionId, from))).toContain('model: demo-thorough');
    expect(textOf(peer.of(s.sessionId, from), 'agent_thought_chunk')).toContain('demo-thorough');

    const bad = await rpcError(
      peer.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: s.sessionId,
        configId: 'model',
        value: 'gpt-9',
      }),
    );
    expect(bad.code).toBe(-32602);
    const badId = await rpcError(
      peer.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: s.sessionId,
        configId: 'colour',
        value: 'red',
      }),
    );
    expect(badId.code).toBe(-32602);
    const unknown = await rpcError(
      peer.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: 'nope',
        configId: 'model',
        value: 'demo-fast',
      }),
    );
    expect(unknown.code).toBe(-32002);
  });

  it('"fail" answers a JSON-RPC -32603 error with data.details', async () => {
    const s = await peer.newSession(cwd);
    const e = await rpcError(
      peer.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text('fail') }),
    );
    expect(e.code).toBe(-32603);
    expect((e.data as { details?: string }).details).toMatch(/on purpose/);
    // The session is usable afterwards.
    const r = await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text('hi'),
    });
    expect(r.stopReason).toBe('end_turn');
  });

  it('"refuse" ends with stopReason refusal', async () => {
    const s = await peer.newSession(cwd);
    const from = peer.updates.length;
    const r = await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: text('refuse please'),
    });
    expect(r.stopReason).toBe('refusal');
    expect(textOf(peer.of(s.sessionId, from))).toMatch(/refuses/);
  });

  it('"plan" emits a 3-entry plan whose statuses advance to completed', async () => {
    const s = await peer.newSession(cwd);
    const from = peer.updates.length;
    await peer.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text('plan') });
    const plans = peer
      .of(s.sessionId, from)
      .flatMap((u) => (u.sessionUpdate === 'plan' ? [u.entries.map((e) => e.status)] : []));
    expect(plans[0]).toEqual(['pending', 'pending', 'pending']);
    expect(plans).toContainEqual(['completed', 'in_progress', 'pending']);
    expect(plans.at(-1)).toEqual(['completed', 'completed', 'completed']);
    for (const p of plans) expect(p).toHaveLength(3);
  });

  it('"/help" (slash command form) lists the keywords', async () => {
    const s = await peer.newSession(cwd);
    const from = peer.updates.length;
    await peer.agent.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: text('/help') });
    const reply = textOf(peer.of(s.sessionId, from));
    expect(reply).toContain('Talaria demo agent');
    expect(reply).toContain('run CMD');
    expect(reply).not.toContain('You said');
  });

  it('prompting an unknown session is -32002', async () => {
    const e = await rpcError(
      peer.agent.request(acp.methods.agent.session.prompt, { sessionId: 'no-such-session', prompt: text('hi') }),
    );
    expect(e.code).toBe(-32002);
  });

  it('exits 0 when stdin closes, silent on stderr without TALARIA_DEMO_DEBUG', async () => {
    const { code } = await peer.end();
    expect(code).toBe(0);
    expect(peer.stderr()).toBe('');
  });
});
