/**
 * Bound what an agent controls: frames for session ids nobody opened are held in one buffer,
 * capped by sessions, frames and bytes (not once per layer, not without limit), and event
 * iterators nobody reads hold nothing. Asserted on buffer sizes and listener counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AcpClient } from '../../src/session/client.js';
import { DEFAULT_EARLY_LIMITS } from '../../src/session/early-frames.js';
import { fake } from '../protocol/fake-agents.js';
import { makeHost, scriptAgent, shutdownHosts, FAKE } from '../host/helpers.js';
import { tempDir } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(shutdownHosts);

const limits = { sessions: 16, framesPerSession: 100, bytes: 256 * 1024 };

describe('a hostile agent', () => {
  it('thousands of unknown session ids and a flood for one: the early buffer stays within its caps; the real session still gets its own', async () => {
    const client = await AcpClient.spawn(
      { ...fake('hostile-agent', '2000', '1000', '2048'), cwd: tempDir() },
      { earlyLimits: limits },
    );
    try {
      const s = await client.newSession({ cwd: tempDir() });
      const held = client.router.early.size;
      expect(held.sessions).toBeLessThanOrEqual(limits.sessions);
      expect(held.frames).toBeLessThanOrEqual(limits.sessions * limits.framesPerSession);
      expect(held.bytes).toBeLessThanOrEqual(limits.bytes);
      // 4,000 ghost frames and 1,000 hog frames arrived; nearly all of them were dropped, and counted.
      expect(client.router.early.dropped).toBeGreaterThan(4000);
      // The real session's early updates were not among them.
      expect(s.thread.entries.map((e) => (e.kind === 'assistant_message' ? e.text : e.kind))).toEqual(['welcome']);
      expect(s.thread.availableCommands).toHaveLength(1);
      expect((await s.prompt('hi').result).stopReason).toBe('end_turn');
    } finally {
      await client.close();
    }
  });

  it('through the host (which kept a second buffer of its own before): the session opens with its early updates and works', async () => {
    const agent = scriptAgent('hostile', 'hostile-agent.ts', {
      args: [...nodeArgs(FAKE('hostile-agent.ts')), '3000', '20', '16'],
    });
    const t = makeHost({ providers: [agent] });
    const s = await t.host.newSession({ provider: agent.id, workspace: t.workspace });
    expect(s.thread.entries.map((e) => (e.kind === 'assistant_message' ? e.text : e.kind))).toEqual(['welcome']);
    expect((await s.prompt('hi').result).stopReason).toBe('end_turn');
  });

  it('the default caps are finite on all three axes', () => {
    for (const v of Object.values(DEFAULT_EARLY_LIMITS)) expect(Number.isFinite(v) && v > 0).toBe(true);
  });
});
