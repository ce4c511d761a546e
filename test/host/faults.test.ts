/**
 * Every host fault with a test: crash mid-turn (respawn + reload), crash loop (backoff), stall
 * (cancel, then kill), idle reap, env change, concurrency limit, and no orphans at exit.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isTalariaError } from '../../src/protocol/errors.js';
import {
  agentLog,
  alive,
  gone,
  makeHost,
  notices,
  scriptAgent,
  shutdownHosts,
  tempDir,
  texts,
  waitHost,
  waitSession,
} from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(shutdownHosts);

const HARNESS = fileURLToPath(new URL('./harness.ts', import.meta.url));

function hostAgent(o: { log?: string; id?: string; maxConcurrentTurns?: number } = {}) {
  return scriptAgent(o.id ?? 'faulty', 'host-agent.ts', {
    env: { ...(o.log ? { HOST_AGENT_LOG: o.log } : {}) },
    ...(o.maxConcurrentTurns ? { maxConcurrentTurns: o.maxConcurrentTurns } : {}),
  });
}

describe('host faults', () => {
  it('crash mid-turn: the turn ends agent_crashed with the stderr tail; the next prompt respawns and reloads', async () => {
    const log = join(tempDir(), 'agent.log');
    const t = makeHost({ providers: [hostAgent({ log })] });
    const s = await t.host.newSession({ provider: 'faulty', workspace: t.workspace });
    await s.prompt('echo one').result;
    const crashed = await s.prompt('crash').result;
    expect(crashed.stopReason).toBe('error');
    expect(crashed.error?.code).toBe('agent_crashed');
    expect(crashed.error?.message).toMatch(/host-agent crashed on purpose/);
    const ev = (await waitHost(t, (e) => e.type === 'agent.crashed')) as {
      stderrTail: string;
      sessions: string[];
      exitCode: number;
    };
    expect(ev).toMatchObject({ exitCode: 3, sessions: [s.id] });
    expect(ev.stderrTail).toMatch(/RuntimeError: host-agent crashed on purpose/);
    expect(s.state).toBe('idle');

    const again = await s.prompt('echo two').result;
    expect(again.stopReason).toBe('end_turn');
    expect(texts(s)).toEqual(['echo: one', 'about to crash', 'echo: two']);
    expect(texts(s, 'user_message')).toEqual(['echo one', 'crash', 'echo two']);
    const pids = t.events.filter((e) => e.type === 'agent.spawned').map((e) => (e as { pid: number }).pid);
    expect(pids).toHaveLength(2);
    const second = agentLog(log)
      .filter((l) => l.pid === pids[1])
      .map((l) => l.msg.method);
    expect(second).toEqual(['initialize', 'session/load', 'session/prompt']);
    expect(t.events.some((e) => e.type === 'session.rebound' && e.sessionId === s.id)).toBe(true);
    // The thread says the agent was restarted, once, under the message that restarted it.
    const restarted = notices(s).filter((n) => n.code === 'agent_restarted');
    expect(restarted).toHaveLength(1);
    expect(restarted[0]!.text).toMatch(/was restarted \(its process stopped\)/);
    const kinds = s.thread.entries.map((e) => (e.kind === 'notice' ? (e as { code: string }).code : e.kind));
    expect(kinds.slice(-3)).toEqual(['user_message', 'agent_restarted', 'assistant_message']);
  });

  it('crash loop: backs off and reports instead of spinning', async () => {
    const t = makeHost({
      providers: [scriptAgent('broken', 'exit-during-initialize.ts')],
      backoff: { freeRestarts: 1, baseMs: 60_000 },
    });
    type Failure = Error & { code: string; details?: { backoff?: boolean } };
    const open = () =>
      t.host.newSession({ provider: 'broken', workspace: t.workspace }).then(
        () => {
          throw new Error('opened a session on an agent that cannot start');
        },
        (e: unknown) => e as Failure,
      );
    const first = await open();
    expect(first.message).toMatch(/config\.yaml is invalid/);
    expect((await open()).message).toMatch(/config\.yaml is invalid/);
    const backoff = await waitHost(t, (e) => e.type === 'agent.backoff');
    expect(backoff).toMatchObject({ crashes: 2, delayMs: 60_000 });
    const third = await open();
    expect(third.code).toBe('spawn_failed');
    expect(third.details?.backoff).toBe(true);
    expect(third.message).toMatch(/crashed 2 times in a row/);
    expect(t.events.filter((e) => e.type === 'agent.crashed')).toHaveLength(2);
    expect(t.host.agents()[0]).toMatchObject({ state: 'backoff', crashes: 2 });
  });

  it('stall: no frame for stallMs → turn.stalled → cancel (the agent answers cancelled)', async () => {
    const log = join(tempDir(), 'agent.log');
    const t = makeHost({ providers: [hostAgent({ log })], stallMs: 150, cancelGraceMs: 10_000 });
    const s = await t.host.newSession({ provider: 'faulty', workspace: t.workspace });
    const r = await s.prompt('stall').result;
    expect(r.stopReason).toBe('cancelled');
    expect(t.events.find((e) => e.type === 'turn.stalled')).toMatchObject({ sessionId: s.id });
    expect(agentLog(log).some((l) => l.msg.method === 'session/cancel')).toBe(true);
    expect(t.events.some((e) => e.type === 'agent.exited')).toBe(false);
    expect((await s.prompt('echo still here').result).stopReason).toBe('end_turn');
  });

  it('stall: an agent that stays silent after the cancel is killed; the session goes on in a new process', async () => {
    const log = join(tempDir(), 'agent.log');
    const t = makeHost({ providers: [hostAgent({ log })], stallMs: 150, cancelGraceMs: 150 });
    const s = await t.host.newSession({ provider: 'faulty', workspace: t.workspace });
    const r = await s.prompt('deaf').result;
    expect(r.error?.code).toBe('timeout');
    await waitHost(t, (e) => e.type === 'agent.exited');
    const order = t.events.map((e) => e.type).filter((x) => x === 'turn.stalled' || x === 'agent.exited');
    expect(order).toEqual(['turn.stalled', 'agent.exited']);
    expect(t.events.find((e) => e.type === 'agent.exited')).toMatchObject({ reason: 'stalled' });
    expect(agentLog(log).some((l) => l.msg.method === 'session/cancel')).toBe(true);
    expect(s.state).toBe('idle');
    expect((await s.prompt('echo back').result).stopReason).toBe('end_turn');
    expect(texts(s).at(-1)).toBe('echo: back');
    expect(
      notices(s)
        .filter((n) => n.code === 'agent_restarted')
        .map((n) => n.text),
    ).toEqual([expect.stringMatching(/was restarted \(it stopped answering and was stopped\)/)]);
  });

  it('idle reap: a process without work is stopped after idleMs; the next use respawns and reloads', async () => {
    const t = makeHost({ providers: [hostAgent()], idleMs: 100 });
    const s = await t.host.newSession({ provider: 'faulty', workspace: t.workspace });
    await s.prompt('echo before').result;
    const served = (t.events.filter((e) => e.type === 'agent.spawned').at(-1) as { generation: number }).generation;
    expect(await waitHost(t, (e) => e.type === 'agent.exited' && e.generation === served)).toMatchObject({
      reason: 'idle',
    });
    expect(s.state).toBe('idle');
    expect((await s.prompt('echo after').result).stopReason).toBe('end_turn');
    expect(texts(s)).toEqual(['echo: before', 'echo: after']);
    // Stopped on purpose while idle: nothing to tell.
    expect(notices(s).filter((n) => n.code === 'agent_restarted')).toEqual([]);
    expect(t.events.some((e) => e.type === 'agent.spawned' && e.generation > served)).toBe(true);
    expect(t.events.some((e) => e.type === 'session.rebound' && e.generation > served)).toBe(true);
  });

  it('env is frozen at spawn: a change restarts the process once its turn is done', async () => {
    const t = makeHost({ providers: [hostAgent()] });
    const order: string[] = [];
    t.host.subscribe((e) => e.type === 'agent.exited' && order.push(`exited:${e.reason}`));
    t.host.setWorkspaceEnv(t.workspace, { FOO: 'one' });
    const s = await t.host.newSession({ provider: 'faulty', workspace: t.workspace });
    s.subscribe((e) => e.type === 'turn.ended' && order.push('turn.ended'));
    await s.prompt('env FOO').result;
    expect(texts(s).at(-1)).toBe('env FOO=one');
    const busy = s.prompt('busy 30');
    await waitSession(s, (e) => e.type === 'entry.added' && (e.entry as { kind: string }).kind === 'assistant_message');
    t.host.setWorkspaceEnv(t.workspace, { FOO: 'two' });
    expect((await busy.result).stopReason).toBe('end_turn');
    await waitHost(t, (e) => e.type === 'agent.exited');
    expect(order).toEqual(['turn.ended', 'turn.ended', 'exited:env_changed']);
    await s.prompt('env FOO').result;
    expect(texts(s).at(-1)).toBe('env FOO=two');
  });

  it('a per-process concurrency limit keeps a serial agent to one turn at a time across sessions', async () => {
    const t = makeHost({
      providers: [hostAgent({ id: 'serial', maxConcurrentTurns: 1 }), hostAgent({ id: 'parallel' })],
    });
    const run = async (provider: string) => {
      const a = await t.host.newSession({ provider, workspace: t.workspace });
      const b = await t.host.newSession({ provider, workspace: t.workspace });
      await Promise.all([a.prompt('busy 20').result, b.prompt('busy 20').result]);
      return [texts(a).at(-1), texts(b).at(-1)].map((x) => /max=\d+/.exec(x ?? '')?.[0]);
    };
    expect(await run('serial')).toEqual(['max=1', 'max=1']);
    expect(t.events.find((e) => e.type === 'turn.waiting')).toMatchObject({ position: 1, limit: 1 });
    // The control: the same agent without the limit runs them together.
    expect(await run('parallel')).toContain('max=2');
  });

  for (const mode of ['shutdown', 'exit'] as const) {
    it(`leaves no orphans when the harness exits (${mode === 'shutdown' ? 'after shutdown()' : 'without shutdown: exit hook'})`, async () => {
      const child = spawn(process.execPath, [...nodeArgs(HARNESS), mode], { stdio: ['pipe', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
        });
      });
      const pids = JSON.parse(line) as { agent: number; child: number };
      expect(alive(pids.agent) && alive(pids.child)).toBe(true);
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.write('go\n');
      await exited;
      await gone(pids.agent);
      await gone(pids.child);
      expect([alive(pids.agent), alive(pids.child)]).toEqual([false, false]);
    });
  }
});

describe('host errors', () => {
  it('an unknown provider is a clear error', async () => {
    const t = makeHost();
    const err = await t.host.newSession({ provider: 'nope', workspace: t.workspace }).catch((e: unknown) => e);
    expect(isTalariaError(err, 'invalid_argument')).toBe(true);
    expect((err as Error).message).toMatch(/unknown agent "nope"; known: hermes, claude-code/);
  });
});
