/**
 * The summary's `failure` (the web's "failed" dot) over HTTP: it survives a restart of the server
 * (read from the last stored turn), a crash of the agent between turns clears only the agent's
 * failure once the session recovers, and the next turn clears a turn's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { ServerClient } from '../../src/server/client/index.js';
import { isEvent, place, serve, watching, type Served } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

vi.setConfig({ testTimeout: 120_000 });

const SDK_AGENT = fileURLToPath(new URL('../fakes/sdk-agent.ts', import.meta.url));

const failureOf = async (c: ServerClient, id: string) =>
  (await c.api.listSessions({ query: {} })).sessions.find((s) => s.id === id)?.failure;

async function newSession(s: Served, provider: string): Promise<string> {
  const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
  const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider } });
  return snapshot.session.id;
}

/** Sends `text` and waits for its turn's end. */
async function turn(s: Served, id: string, text: string): Promise<void> {
  const probe = await watching(s.server, id);
  const before = probe.events(id).filter((e) => e.type === 'turn.ended').length;
  await s.client.api.prompt({ params: { id }, body: { text } });
  await probe.wait(() => probe.events(id).filter((e) => e.type === 'turn.ended').length > before);
  probe.close();
}

describe('the failed status of a session', () => {
  it('survives a restart of the server (the last stored turn says it), with its cause; the next turn clears it', async () => {
    const p = place();
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({ agents: { fake: { command: process.execPath, args: nodeArgs(SDK_AGENT) } } }),
    );
    const first = await serve({ p });
    const failed = await newSession(first, 'demo');
    const crashed = await newSession(first, 'fake');
    const fine = await newSession(first, 'demo');
    await turn(first, failed, 'fail');
    await turn(first, crashed, 'hello');
    await turn(first, crashed, 'crash');
    await turn(first, fine, 'hello');
    expect(await failureOf(first.client, failed)).toMatchObject({ cause: 'turn' });
    expect(await failureOf(first.client, crashed)).toMatchObject({ cause: 'agent' });
    await first.server.close();

    const second = await serve({ p });
    const c = second.client;
    expect(await failureOf(c, failed)).toEqual({ cause: 'turn', message: expect.stringMatching(/Demo failure/) });
    expect(await failureOf(c, crashed)).toMatchObject({ cause: 'agent' });
    expect(await failureOf(c, fine)).toBeUndefined();
    // The stored session's own summary says the same; so does the session once reopened.
    expect((await c.api.snapshot({ params: { id: failed } })).snapshot.session.failure).toMatchObject({
      cause: 'turn',
    });
    const reopened = await c.api.openSession({ params: { id: failed }, body: {} });
    expect(reopened.snapshot.session).toMatchObject({
      live: true,
      failure: { cause: 'turn', message: expect.stringMatching(/Demo failure/) },
    });
    await turn(second, failed, 'hello');
    expect(await failureOf(c, failed)).toBeUndefined();
  });

  it('an agent crash between turns: the recovered session drops the agent failure, a turn failure stays until the next turn', async () => {
    const s = await serve();
    const ok = await newSession(s, 'demo');
    const failed = await newSession(s, 'demo');
    await turn(s, ok, 'hello');
    await turn(s, failed, 'fail');
    expect(await failureOf(s.client, failed)).toMatchObject({ cause: 'turn' });
    const probes = await Promise.all([ok, failed].map((id) => watching(s.server, id)));
    const agents = s.harness.host.agents();
    expect(agents).toHaveLength(1);
    process.kill(agents[0]!.pid!, 'SIGKILL');
    // Each session fails with its agent, then recovers (its next use starts the agent again).
    for (const [i, id] of [ok, failed].entries()) {
      const probe = probes[i]!;
      await probe.wait(isEvent(id, 'attention'));
      await probe.wait(
        (m) =>
          m.type === 'event' &&
          m.event.sessionId === id &&
          m.event.type === 'session.state' &&
          m.event.previous === 'failed',
      );
      probe.close();
    }
    expect(await failureOf(s.client, ok)).toBeUndefined();
    expect(await failureOf(s.client, failed)).toEqual({
      cause: 'turn',
      message: expect.stringMatching(/Demo failure/),
    });
    await turn(s, failed, 'hello');
    expect(await failureOf(s.client, failed)).toBeUndefined();
    expect(await failureOf(s.client, ok)).toBeUndefined();
  });
});
