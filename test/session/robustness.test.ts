/**
 * Nothing crashes the embedding program: a cancel while the agent's stdout is closing, a quirk
 * hook that throws — each ends the turn with an error and leaks no rejection (the leak trap in
 * test/leak-trap.ts fails any test that does).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AcpClient } from '../../src/session/client.js';
import type { SessionHooks } from '../../src/session/hooks.js';
import type { Session } from '../../src/session/session.js';
import { fake } from '../protocol/fake-agents.js';
import { FAKE, makeHost, scriptAgent, shutdownHosts } from '../host/helpers.js';
import { spawnFake, tempDir, waitFor } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(shutdownHosts);

/** Resolves once the agent's stdout has ended (the transport saw EOF; the connection is closing). */
function stdoutEnded(client: AcpClient): Promise<void> {
  const out = client.connection.process!.stdout;
  return out.readableEnded ? Promise.resolve() : new Promise((r) => out.once('end', () => r()));
}

async function promptThenQuiet(session: Session): Promise<ReturnType<Session['prompt']>> {
  const said = waitFor(session, (e) => e.type === 'entry.added' && e.entry.kind === 'assistant_message');
  const turn = session.prompt('hello');
  await said;
  return turn;
}

describe('cancel while the agent is going away', () => {
  it('session.cancel() while its stdout is closing: the turn ends agent_crashed, nothing is thrown or leaked', async () => {
    const client = await AcpClient.spawn({ ...fake('close-stdout', 'mid-turn'), cwd: tempDir() });
    try {
      const session = await client.newSession({ cwd: tempDir() });
      const turn = await promptThenQuiet(session);
      await stdoutEnded(client);
      expect(client.connection.isClosed).toBe(false); // still in its exit grace: notify fails late
      const r = await session.cancel();
      expect(r).toMatchObject({ stopReason: 'error', error: { code: 'agent_crashed' } });
      expect(await turn.result).toBe(r);
    } finally {
      await client.close();
    }
  });

  it('through the host: the same cancel on a hosted session', async () => {
    const agent = scriptAgent('closer', 'close-stdout.ts', {
      args: [...nodeArgs(FAKE('close-stdout.ts')), 'mid-turn'],
    });
    const t = makeHost({ providers: [agent] });
    const session = await t.host.newSession({ provider: agent.id, workspace: t.workspace });
    const turn = await promptThenQuiet(session);
    const r = await session.cancel();
    expect(r?.stopReason).toBe('error');
    expect(await turn.result).toBe(r);
  });
});

describe('a throwing quirk hook ends the turn, never the program', () => {
  /** Throws the first time only. */
  const once = <A extends unknown[], R>(ok: (...a: A) => R) => {
    let thrown = false;
    return (...a: A): R => {
      if (!thrown) {
        thrown = true;
        throw new Error('quirk hook bug');
      }
      return ok(...a);
    };
  };
  const cases: [string, () => SessionHooks][] = [
    ['classifyTurn', () => ({ classifyTurn: once(() => undefined) })],
    ['mapPrompt', () => ({ mapPrompt: once((blocks) => ({ blocks, notices: [] })) })],
  ];
  for (const [name, hooks] of cases) {
    it(`${name} throws: the turn resolves with an internal error and the session takes the next prompt`, async () => {
      const { client, cwd } = await spawnFake({ hooks: hooks() });
      try {
        const session = await client.newSession({ cwd });
        const r = await session.prompt('hello').result;
        expect(r).toMatchObject({ stopReason: 'error', error: { code: 'internal', message: 'quirk hook bug' } });
        expect(session.state).toBe('idle');
        expect((await session.prompt('hello again').result).stopReason).toBe('end_turn');
      } finally {
        await client.close();
      }
    });
  }
});
