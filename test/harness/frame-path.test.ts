/**
 * One frame, one road: each session's stored log is its own traffic, bytes as they crossed the
 * pipe — also while a retiring agent process drains next to its replacement, whose JSON-RPC ids
 * start over (the old harness-side router matched answers across processes and swapped them).
 */
import { describe, it, expect, vi } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import { createRegistry } from '../../src/providers/registry.js';
import { scriptAgent } from '../host/helpers.js';
import { makeHarness, place } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe('frames reach the store through their session', () => {
  it("a retiring process and its replacement reuse JSON-RPC ids: every answer lands in its own session's log", async () => {
    const p = place();
    const agent = scriptAgent('drainer', 'host-agent.ts');
    const frames: Frame[] = [];
    let onFrame: (() => void) | undefined;
    const h = makeHarness(p, {
      registry: createRegistry({ extra: [agent] }),
      onFrame: (_k, f) => (frames.push(f), onFrame?.()),
    });
    const ws = h.workspaces.open(p.userHome);
    const isPrompt = (f: Frame, sid: string) =>
      f.dir === 'client->agent' &&
      f.msg.method === 'session/prompt' &&
      (f.msg.params as { sessionId: string }).sessionId === sid;
    /** Resolves once the prompt of `sid` has been written to its agent. */
    const prompted = (sid: string) =>
      new Promise<void>((resolve) => {
        const check = () => frames.some((f) => isPrompt(f, sid)) && (resolve(), true);
        if (!check()) onFrame = () => void check();
      });

    const a = await ws.newSession({ provider: agent.id });
    const turnA = a.prompt('stall');
    await prompted(a.agentSessionId);
    // New env: the process serving A retires once A's turn is over; B gets a new process.
    h.host.setWorkspaceEnv(p.userHome, { DRAINER_ENV: 'second' });
    const b = await ws.newSession({ provider: agent.id });
    const turnB = b.prompt('stall');
    await prompted(b.agentSessionId);
    expect(h.host.agents()[0]!.generation).toBe(2);
    // Both prompts have id 2 (initialize 0, session/new 1, prompt 2 in each process).
    const ids = frames.filter((f) => f.msg.method === 'session/prompt').map((f) => f.msg.id);
    expect(ids).toEqual([2, 2]);
    await a.cancel();
    await b.cancel();
    expect((await turnA.result).stopReason).toBe('cancelled');
    expect((await turnB.result).stopReason).toBe('cancelled');

    for (const s of [a, b]) {
      const log = h.store.wire.read(s.id);
      const answers = log.filter(
        (l) =>
          l.dir === 'agent->client' && (l.msg.result as { stopReason?: string } | undefined)?.stopReason !== undefined,
      );
      expect(answers.map((l) => (l.msg.result as { _meta: { sessionId: string } })._meta.sessionId)).toEqual([
        s.agentSessionId,
      ]);
      // Each log opens with its own process's handshake, and holds only its own session's frames.
      expect(log[0]!.msg.method).toBe('initialize');
      const named = log
        .map((l) => (l.msg.params as { sessionId?: string } | undefined)?.sessionId)
        .filter((x) => x !== undefined);
      expect(new Set(named)).toEqual(new Set([s.agentSessionId]));
    }
    // The bytes as they crossed the pipe.
    const raw = new Map(frames.map((f) => [f.raw, f]));
    for (const r of h.store.wire.rows(b.id)) expect(raw.has(r.msg)).toBe(true);
    await h.close();
  });
});
