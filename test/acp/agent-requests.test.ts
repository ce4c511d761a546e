/**
 * What `talaria acp` passes between the editor and an agent beyond the standard methods: a vendor
 * request of the agent (no leading `_`) goes to the editor and its answer back; terminal auth
 * methods only to an editor that runs them, with the agent's command and config env; and a
 * terminal Talaria runs for the agent reaches an editor without terminals as its output.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { agentText, editorEnv, startEditor } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

vi.setConfig({ testTimeout: 120_000 });

const AGENT = fileURLToPath(new URL('./proxy-agent.ts', import.meta.url));
const INFO = { name: 'test-editor', version: '1' };

/** The proxy agent as config.json's agent `pa`, with an env of its own. */
function setup() {
  const { env } = editorEnv();
  mkdirSync(env.TALARIA_HOME!, { recursive: true });
  const agents = {
    pa: { command: process.execPath, args: nodeArgs(AGENT), env: { PA_CONFIG_DIR: '/srv/pa-config' } },
  };
  writeFileSync(join(env.TALARIA_HOME!, 'config.json'), JSON.stringify({ agents }), { mode: 0o600 });
  return { env, cwd: tempDir('acp-pa') };
}

describe.concurrent('talaria acp: requests and methods beyond the standard ones', () => {
  it("an agent's vendor request goes to the editor, the editor's answer (result or error) back to the agent", async () => {
    const { env, cwd } = setup();
    const ed = startEditor(['--agent', 'pa'], { cwd, env });
    await ed.request('initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: INFO });
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    ed.onOther = (method, params) => ({ drained: params.max, method });
    await ed.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'EXT' }] });
    const answered = () => agentText(ed.updates, s.sessionId).startsWith('answer:');
    await ed.until(answered, 'the answer the agent got');
    expect(ed.others).toEqual([{ method: 'craft/drainMidTurnQueue', params: { sessionId: s.sessionId, max: 2 } }]);
    expect(agentText(ed.updates, s.sessionId)).toBe(
      `answer:${JSON.stringify({ drained: 2, method: 'craft/drainMidTurnQueue' })}`,
    );
    // The editor's error goes back as it came.
    ed.onOther = () => {
      throw new acp.RequestError(-32050, 'queue is busy');
    };
    ed.updates.length = 0;
    await ed.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'EXT' }] });
    await ed.until(answered, 'the answer the agent got');
    expect(agentText(ed.updates, s.sessionId)).toMatch(/^answer:\{"code":-32050,"message":"queue is busy"/);
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames, { except: (v) => v.method === 'craft/drainMidTurnQueue' });
  });

  it("terminal auth methods reach only an editor that runs them, as the agent's command with its config env", async () => {
    const { env, cwd } = setup();
    const plain = startEditor(['--agent', 'pa'], { cwd, env });
    const init = await plain.request<any>('initialize', {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
      clientInfo: INFO,
    });
    expect(init.authMethods.map((m: any) => m.id)).toEqual(['token']);
    expect(await plain.close()).toBe(0);

    const runs = startEditor(['--agent', 'pa'], { cwd, env });
    const init2 = await runs.request<any>('initialize', {
      protocolVersion: 1,
      clientCapabilities: { _meta: { 'terminal-auth': true } },
      clientInfo: INFO,
    });
    const byId = new Map<string, any>(init2.authMethods.map((m: any) => [m.id, m]));
    expect([...byId.keys()]).toEqual(['token', 'meta-login', 'setup']);
    expect(byId.get('meta-login')._meta['terminal-auth']).toMatchObject({
      command: '/opt/vendor/login-tool',
      args: ['--login'],
      label: 'Vendor login',
      env: { PA_CONFIG_DIR: '/srv/pa-config' },
    });
    // ACP `type: "terminal"`: the editor's own command is talaria acp, so the agent's is named.
    expect(byId.get('setup')._meta['terminal-auth']).toMatchObject({
      command: process.execPath,
      args: [...nodeArgs(AGENT), '--setup'],
      env: { PA_CONFIG_DIR: '/srv/pa-config' },
    });
    expect(await runs.close()).toBe(0);
    expectValidWire([...plain.frames, ...runs.frames]);
  });

  it("an editor without terminals gets a terminal's output as text; one with terminals keeps the terminal", async () => {
    const { env, cwd } = setup();
    const ed = startEditor(['--agent', 'pa', '--approve', 'all'], { cwd, env });
    await ed.request('initialize', { protocolVersion: 1, clientCapabilities: { terminal: false }, clientInfo: INFO });
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    await ed.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'TERM' }] });
    const calls = () =>
      ed.updates.filter((u) => u.sessionId === s.sessionId && u.update.toolCallId === 't1').map((u) => u.update);
    const texts = () =>
      calls().flatMap((u) =>
        (u.content ?? []).map((c: any) =>
          c.type === 'content' && c.content.type === 'text' ? (c.content.text as string) : '',
        ),
      );
    await ed.until(() => texts().some((t) => t.includes('hello-from-terminal\nsecond-line')), 'the output as text');
    expect(
      calls()
        .flatMap((u) => u.content ?? [])
        .some((c: any) => c.type === 'terminal'),
    ).toBe(false);
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames);

    const term = startEditor(['--agent', 'pa', '--approve', 'all'], { cwd, env });
    await term.request('initialize', { protocolVersion: 1, clientCapabilities: { terminal: true }, clientInfo: INFO });
    const s2 = await term.request<any>('session/new', { cwd, mcpServers: [] });
    await term.request('session/prompt', { sessionId: s2.sessionId, prompt: [{ type: 'text', text: 'TERM' }] });
    const started = term.updates.find(
      (u) => u.sessionId === s2.sessionId && u.update.sessionUpdate === 'tool_call',
    )!.update;
    expect(started.content).toEqual([{ type: 'terminal', terminalId: expect.stringMatching(/^term_/) }]);
    expect(await term.close()).toBe(0);
  });
});
