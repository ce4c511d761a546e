/**
 * Generic host behaviour: one process per (provider, profile, workspace) with many sessions,
 * capability ceilings, prompt capabilities, close and shutdown.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTalariaError } from '../../src/protocol/errors.js';
import { agentLog, makeHost, notices, scriptAgent, shutdownHosts, tempDir, texts, waitHost } from './helpers.js';

afterEach(shutdownHosts);

describe('hosted sessions', () => {
  it('one process per workspace serves many sessions; another workspace gets its own', async () => {
    const t = makeHost({ providers: [scriptAgent('agent', 'host-agent.ts')] });
    const other = tempDir('ws2-');
    const a = await t.host.newSession({ provider: 'agent', workspace: t.workspace });
    const b = await t.host.newSession({ provider: 'agent', workspace: t.workspace });
    const c = await t.host.newSession({ provider: 'agent', workspace: other });
    await Promise.all([a, b, c].map((s) => s.prompt('pid').result));
    expect(texts(a)[0]).toBe(texts(b)[0]);
    expect(texts(c)[0]).not.toBe(texts(a)[0]);
    expect(t.events.filter((e) => e.type === 'agent.spawned')).toHaveLength(2);
    expect(t.host.agents().map((x) => [x.key.workspace, x.sessions.length, x.state])).toEqual([
      [t.workspace, 2, 'running'],
      [other, 1, 'running'],
    ]);
    expect(t.host.targetOf(c)).toEqual({ provider: 'agent', workspace: other });
  });

  it('applies capability ceilings and withholds what the agent cannot take, visibly', async () => {
    const log = join(tempDir(), 'agent.log');
    const t = makeHost({
      providers: [scriptAgent('nofs', 'host-agent.ts', { fs: false, terminal: false, env: { HOST_AGENT_LOG: log } })],
    });
    const s = await t.host.newSession({ provider: 'nofs', workspace: t.workspace });
    const init = agentLog(log).find((l) => l.msg.method === 'initialize')!;
    expect(init.msg.params.clientCapabilities).toMatchObject({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
    await s.prompt([
      { type: 'text', text: 'echo picture' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ]).result;
    expect(notices(s).map((n) => n.code)).toEqual(['image_withheld']);
    const sent = agentLog(log).find((l) => l.msg.method === 'session/prompt')!;
    expect(sent.msg.params.prompt).toEqual([{ type: 'text', text: 'echo picture' }]);
  });

  it('a session whose agent cannot load it again says so after a crash (no silent new session)', async () => {
    const t = makeHost({ providers: [scriptAgent('noload', 'host-agent.ts', { env: { HOST_AGENT_NO_LOAD: '1' } })] });
    const s = await t.host.newSession({ provider: 'noload', workspace: t.workspace });
    expect((await s.prompt('crash').result).error?.code).toBe('agent_crashed');
    const r = await s.prompt('echo again').result;
    expect(r.error?.code).toBe('unsupported');
    expect(r.error?.message).toMatch(/cannot load session .* into a new process; start a new session/);
  });

  it('closeSession forgets the session; shutdown closes the rest and stops the processes', async () => {
    const t = makeHost({ providers: [scriptAgent('agent', 'host-agent.ts')] });
    const a = await t.host.newSession({ provider: 'agent', workspace: t.workspace });
    const b = await t.host.newSession({ provider: 'agent', workspace: t.workspace });
    await t.host.closeSession(a);
    expect(a.state).toBe('closed');
    expect(t.host.agents()[0]!.sessions).toEqual([b.id]);
    expect(await t.host.listSessions({ provider: 'agent', workspace: t.workspace })).toEqual([]);
    await t.host.shutdown();
    expect(b.state).toBe('closed');
    expect(await waitHost(t, (e) => e.type === 'agent.exited')).toMatchObject({ reason: 'shutdown' });
    const err = await t.host.newSession({ provider: 'agent', workspace: t.workspace }).catch((e: unknown) => e);
    expect(isTalariaError(err, 'invalid_state')).toBe(true);
  });
});
