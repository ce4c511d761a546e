/**
 * The warm pool over the Hermes emulator (real process, real ACP): an opened workspace gets its
 * agent started and a spare session kept ready; "new session" takes the spare without a
 * `session/new` of its own; spares are in no list and not recorded until taken.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import type { AgentKey } from '../../src/host/events.js';
import { HERMES_BIN_DIR, makeHarness, place, tempDir } from './helpers.js';
import { until } from '../until.js';

/** Every frame, and a way to wait until a condition over them holds (no sleeps). */
function wire() {
  const frames: Frame[] = [];
  const waiters: (() => void)[] = [];
  const onFrame = (_k: AgentKey, f: Frame) => {
    frames.push(f);
    for (const w of waiters.splice(0)) w();
  };
  const until = (pred: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = () => (pred() ? resolve() : waiters.push(check));
      check();
    });
  const news = () =>
    frames.filter((f) => f.dir === 'client->agent' && (f.msg as { method?: string }).method === 'session/new').length;
  /** Session ids the agent gave in its session/new answers, in order. */
  const created = () => {
    const ids = new Set(
      frames
        .filter((f) => f.dir === 'client->agent' && (f.msg as { method?: string }).method === 'session/new')
        .map((f) => (f.msg as { id: unknown }).id),
    );
    return frames
      .filter(
        (f) =>
          f.dir === 'agent->client' &&
          ids.has((f.msg as { id?: unknown }).id) &&
          (f.msg as { result?: { sessionId?: string } }).result?.sessionId,
      )
      .map((f) => (f.msg as { result: { sessionId: string } }).result.sessionId);
  };
  return { frames, onFrame, until, news, created };
}

describe('warm pool', () => {
  it('keeps a spare ready: listed nowhere, recorded only once taken, and new session takes it without a session/new', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame });
    const ws = h.workspaces.open(p.userHome);
    await ws.warm({ provider: 'hermes' });
    expect(h.warm.ready).toBe(1);
    expect(w.news()).toBe(1);
    const [spareId] = w.created();
    // Nowhere to be seen: not in the store, not among the host's sessions, not in the merged list.
    expect(h.store.sessions.list({})).toEqual([]);
    expect(h.host.agents()[0]).toMatchObject({ state: 'running', sessions: [] });
    expect((await ws.sessions({ agent: { provider: 'hermes' } })).sessions).toEqual([]);

    const s = await ws.newSession({ provider: 'hermes' });
    expect(s.agentSessionId).toBe(spareId);
    expect(w.news()).toBe(1);
    expect(h.warm.ready).toBe(0);
    expect(h.host.agents()[0]!.sessions).toEqual([spareId]);
    await s.prompt('hello').result;
    // Its setup frames were held and recorded with the rest.
    const logged = h.store.wire.read(s.id).map((f) => (f.msg as { method?: string }).method);
    expect(logged).toContain('session/new');
    expect(logged).toContain('session/prompt');
    // After its first turn the next spare is made.
    await w.until(() => w.news() === 2 && w.created().length === 2);
    await ws.warm({ provider: 'hermes' });
    expect(h.warm.ready).toBe(1);
    const listed = (await ws.sessions({ agent: { provider: 'hermes' } })).sessions;
    expect(listed.map((l) => l.agentSessionId)).toEqual([spareId]);
    const second = await ws.newSession({ provider: 'hermes' });
    expect(second.agentSessionId).toBe(w.created()[1]);
    expect(w.news()).toBe(2);
  });

  it('a new session with no agent named takes the spare without checking the agent again (no `hermes --version`)', async () => {
    const p = place();
    // HERMES_BIN: the emulator behind a wrapper that logs how it was run.
    const log = join(tempDir('calls'), 'calls.log');
    writeFileSync(log, '');
    const bin = join(tempDir('bin'), 'hermes');
    writeFileSync(bin, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${join(HERMES_BIN_DIR, 'hermes')}' "$@"\n`, {
      mode: 0o755,
    });
    const w = wire();
    const h = makeHarness(p, { hermes: true, vars: { HERMES_BIN: bin }, onFrame: w.onFrame });
    const checks = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => /--version|--check/.test(l)).length;
    const ws = h.workspaces.open(p.userHome);
    await ws.warm(); // no agent named: the pick checks the agents (Hermes first), once
    const first = checks();
    expect(first).toBeGreaterThan(0);
    expect(h.warm.ready).toBe(1);
    const s = await ws.newSession();
    expect(s.provider).toBe('hermes');
    expect(w.news()).toBe(1); // the spare
    expect(checks()).toBe(first);
    await s.prompt('hello').result;
    // The taken session is open (its process proves Hermes works) while the next spare is made.
    const t = await ws.newSession();
    expect(t.provider).toBe('hermes');
    expect(checks()).toBe(first);
    // A Talaria with no live Hermes still checks before it picks.
    const fresh = makeHarness(p, { hermes: true, vars: { HERMES_BIN: bin }, warm: false });
    expect(await fresh.pickAgent({ workspace: p.userHome })).toMatchObject({ provider: 'hermes', from: 'best-ready' });
    expect(checks()).toBeGreaterThan(first);
  });

  it('a workspace opened with an agent that can keep a spare starts it in the background', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame });
    h.workspaces.open(p.userHome);
    await w.until(() => w.created().length === 1);
    expect(h.store.sessions.list({})).toEqual([]);
  });

  it('a Hermes started by a custom command keeps spares once it has named itself: the stored agentInfo decides before any process (issue 35 item 15)', async () => {
    const p = place();
    const launcher = join(tempDir('launcher'), 'hermes-launcher');
    writeFileSync(launcher, `#!/bin/sh\nexec ${JSON.stringify(join(HERMES_BIN_DIR, 'hermes'))} "$@"\n`, {
      mode: 0o755,
    });
    writeFileSync(
      join(p.home, 'config.json'),
      JSON.stringify({
        defaultProvider: 'my-hermes',
        agents: { 'my-hermes': { command: launcher, args: ['acp'], passEnv: ['HERMES_HOME'] } },
      }),
    );
    // A first run: nothing known before initialize, so no spare; Hermes names itself and is stored.
    const first = makeHarness(p, { hermes: true });
    const s = await first.workspaces.open(p.userHome).newSession({ provider: 'my-hermes' });
    await s.prompt('hello').result;
    expect((first.store.sessions.get(s.id)!.agentInfo as { agentInfo: { name: string } }).agentInfo.name).toBe(
      'hermes-agent',
    );
    await first.close();
    // The next start (serve restarted): opening the workspace starts it and keeps a spare, untold.
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame });
    expect((await h.agents()).find((a) => a.providerId === 'my-hermes')?.quirks).toMatchObject({
      basis: 'learned',
      set: expect.stringMatching(/^hermes/),
    });
    h.workspaces.open(p.userHome);
    await w.until(() => w.created().length === 1);
    await until(() => h.warm.ready === 1, { what: 'a ready spare' });
    const next = await h.workspaces.open(p.userHome).newSession({ provider: 'my-hermes' });
    expect(next.agentSessionId).toBe(w.created()[0]);
  });

  it('a new session with options of its own gets its own session/new (the spare stays)', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame });
    const ws = h.workspaces.open(p.userHome);
    await ws.warm({ provider: 'hermes' });
    const s = await ws.newSession({ provider: 'hermes', permissionMode: 'auto' });
    expect(w.news()).toBe(2);
    expect(s.agentSessionId).toBe(w.created()[1]);
    expect(h.warm.ready).toBe(1);
  });

  it('warm: false (option or config.json) starts nothing ahead and keeps no spare', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame, warm: false });
    const ws = h.workspaces.open(p.userHome);
    await ws.warm({ provider: 'hermes' });
    expect(w.frames).toEqual([]);
    expect(await ws.catalog({ provider: 'hermes' })).toBeUndefined();
    await ws.newSession({ provider: 'hermes' });
    expect(w.news()).toBe(1);
    expect(h.warm.ready).toBe(0);

    const q = place();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${q.home}/config.json`, JSON.stringify({ warm: false }));
    const off = makeHarness(q, { hermes: true });
    expect(off.warm.enabled).toBe(false);
    expect(off.configProblems).toEqual([]);
  });

  it('keeps no spare when memory is short, and at most maxSpares across workspaces', async () => {
    const p = place();
    const w = wire();
    const short = makeHarness(p, { hermes: true, onFrame: w.onFrame, warm: { freeMem: () => 0 } });
    await short.workspaces.open(p.userHome).warm({ provider: 'hermes' });
    expect(short.warm.ready).toBe(0);
    expect(w.news()).toBe(0);

    const q = place();
    const one = makeHarness(q, { hermes: true, warm: { maxSpares: 1 } });
    await one.workspaces.open(q.userHome).warm({ provider: 'hermes' });
    await one.workspaces.open(q.demoHome).warm({ provider: 'hermes' });
    expect(one.warm.ready).toBe(1);
  });

  it('keeps at most maxSpares when spares of several workspaces are made at once', async () => {
    const q = place();
    const one = makeHarness(q, { hermes: true, warm: { maxSpares: 1 } });
    await Promise.all([
      one.workspaces.open(q.userHome).warm({ provider: 'hermes' }),
      one.workspaces.open(q.demoHome).warm({ provider: 'hermes' }),
    ]);
    expect(one.warm.ready).toBe(1);
  });

  it('closes a spare left unused, and new session then opens its own', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame, warm: { idleMs: 1 } });
    const ws = h.workspaces.open(p.userHome);
    await ws.warm({ provider: 'hermes' });
    const [spareId] = w.created();
    await until(() => h.warm.ready === 0, { what: 'no spare' });
    const s = await ws.newSession({ provider: 'hermes' });
    expect(s.agentSessionId).not.toBe(spareId);
  });

  it('a spare whose process died is not handed out: new session starts the agent again and opens its own', async () => {
    const p = place();
    const w = wire();
    const h = makeHarness(p, { hermes: true, onFrame: w.onFrame });
    const ws = h.workspaces.open(p.userHome);
    await ws.warm({ provider: 'hermes' });
    const [spareId] = w.created();
    const pid = h.host.agents()[0]!.pid!;
    process.kill(pid, 'SIGKILL');
    await until(() => h.host.agents()[0]!.state !== 'running', { what: 'the agent stopped' });
    const s = await ws.newSession({ provider: 'hermes' });
    expect(s.agentSessionId).not.toBe(spareId);
    expect((await s.prompt('hello').result).stopReason).toBe('end_turn');
  });

  it("the workspace's catalog comes from the spare, with no visible session", async () => {
    const p = place();
    const h = makeHarness(p, { hermes: true });
    const ws = h.workspaces.open(p.userHome);
    const c = await ws.catalog({ provider: 'hermes' });
    expect(c?.model?.currentId).toBeTruthy();
    expect(c?.model?.options.length).toBeGreaterThan(0);
    expect(h.store.sessions.list({})).toEqual([]);
    expect((await ws.sessions({ agent: { provider: 'hermes' } })).sessions).toEqual([]);
    // Cached: a second read needs nothing new.
    expect(await ws.catalog({ provider: 'hermes' })).toBe(c);
  });
});
