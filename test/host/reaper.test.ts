/**
 * Cancel leaves no work behind (issue 17): a fake agent (real ACP over a real pipe) runs shell
 * tools as most agents do and, on cancel, kills only its own child — so whatever the tool put in
 * its own session (setsid), double-forked or left in the background survives unless the host
 * ends it. Each tool writes the pids to end in `pids` and would write `late.txt` if it lived on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../src/host/events.js';
import { bootTicks, readStat } from '../../src/os/proc-tree.js';
import type { Session } from '../../src/session/session.js';
import { alive, makeHost, notices, scriptAgent, shutdownHosts, tempDir, texts, waitHost } from './helpers.js';
import { until } from '../until.js';

const strays: number[] = [];
afterEach(async () => {
  await shutdownHosts();
  // Whatever a failing test left behind must not outlive it.
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

const toolAgent = () => scriptAgent('tools', 'tool-agent.ts');

/** The pids a tool wrote to `file`, once there are `n` of them. */
async function pids(file: string, n: number): Promise<number[]> {
  const list = await until(
    () => {
      const got = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
      return got.length >= n ? got : undefined;
    },
    { what: `${n} pids in ${file}` },
  );
  strays.push(...list);
  return list;
}

/**
 * Until the clock has moved two ticks past the last of `work` started: the reaper judges by start
 * time with one tick of slack, so work that began in the same tick as the next turn is ambiguous.
 */
async function ticksPast(work: number[]): Promise<void> {
  const last = Math.max(...work.map((p) => readStat(p)?.start ?? 0));
  await expect.poll(() => (bootTicks() ?? Infinity) > last + 2, { timeout: 30_000, interval: 5 }).toBe(true);
}

/** A tool body that records its shell and its sleep, and writes late.txt if it is not stopped. */
const body = (dir: string) =>
  `echo $$ >> ${dir}/pids; sleep 30 & echo $! >> ${dir}/pids; wait; echo late > ${dir}/late.txt`;

const escapes: [string, (dir: string) => string][] = [
  ['setsid (its own session, as Claude Code runs tools)', (d) => `setsid sh -c '${body(d)}'`],
  // The tool's own shell stays busy, so the turn is still running when it is cancelled.
  ['setsid -f (double fork, re-parented away from the agent)', (d) => `setsid -f sh -c '${body(d)}'; sleep 30`],
  ['a background job, orphaned when the agent kills its shell', (d) => `sh -c '${body(d)}' & wait`],
];

async function agentPid(s: Session): Promise<number> {
  await s.prompt('pid').result;
  return Number(texts(s).at(-1));
}

describe('cancel ends the work the cancelled turn started', () => {
  for (const [name, command] of escapes) {
    it(`${name}: gone before the turn ends; the agent and the session go on`, async () => {
      const t = makeHost({ providers: [toolAgent()] });
      const s = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
      const agent = await agentPid(s);
      const dir = tempDir('reap-');
      const turn = s.prompt(`run ${command(dir)}`);
      const work = await pids(join(dir, 'pids'), 2);
      expect(work.every(alive)).toBe(true);
      // At the moment the turn ends (its tool card settles), nothing of the tool may still run.
      let aliveAtEnd: boolean[] = [];
      const off = s.subscribe((e) => {
        if (e.type === 'turn.ended') aliveAtEnd = work.map(alive);
      });
      await s.cancel();
      const r = await turn.result;
      off();
      expect(r.stopReason).toBe('cancelled');
      expect(aliveAtEnd).toEqual(work.map(() => false));
      expect(work.map(alive)).toEqual(work.map(() => false));
      expect(existsSync(join(dir, 'late.txt'))).toBe(false);
      const card = s.thread.entries.find((e) => e.kind === 'tool_call');
      expect(card).toMatchObject({ status: 'cancelled' });
      const reaped = t.events.find((e) => e.type === 'turn.reaped') as Extract<HostEvent, { type: 'turn.reaped' }>;
      expect(reaped.ended).toEqual(expect.arrayContaining(work));
      expect(reaped).toMatchObject({ sessionId: s.id, survived: [], left: [] });
      // Not the agent: same process, the session still answers.
      expect(alive(agent)).toBe(true);
      expect(await agentPid(s)).toBe(agent);
    });
  }

  it('a command the agent had us run (terminal/create) that escaped its terminal’s group ends too', async () => {
    const t = makeHost({ providers: [toolAgent()] });
    // terminal/create passes the policy like any execute: auto lets this (harmless) command run unasked.
    const s = await t.host.newSession({ provider: 'tools', workspace: t.workspace, permissionMode: 'auto' });
    const dir = tempDir('reap-');
    const turn = s.prompt(`term setsid -f sh -c '${body(dir)}'; sleep 30`);
    const work = await pids(join(dir, 'pids'), 2);
    await s.cancel();
    expect((await turn.result).stopReason).toBe('cancelled');
    expect(work.map(alive)).toEqual([false, false]);
  });

  it('work of earlier turns and of other sessions on the same agent process stays', async () => {
    const t = makeHost({ providers: [toolAgent()] });
    const a = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const b = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const agent = await agentPid(a);
    expect(await agentPid(b)).toBe(agent); // one process serves both
    const dirA = tempDir('reap-a-');
    const dirB = tempDir('reap-b-');
    // Background work that outlives its turn: B's (another session), and A's own from an earlier turn.
    await b.prompt(`bg setsid sh -c 'echo $$ >> ${dirB}/pids; sleep 30'`).result;
    await a.prompt(`bg setsid sh -c 'echo $$ >> ${dirA}/old; sleep 30'`).result;
    const [other] = await pids(join(dirB, 'pids'), 1);
    const [earlier] = await pids(join(dirA, 'old'), 1);
    await ticksPast([other!, earlier!]);
    const turn = a.prompt(`run setsid sh -c '${body(dirA)}'`);
    const work = await pids(join(dirA, 'pids'), 2);
    await a.cancel();
    await turn.result;
    expect(work.map(alive)).toEqual([false, false]);
    expect([alive(other!), alive(earlier!), alive(agent)]).toEqual([true, true, true]);
    expect(await agentPid(b)).toBe(agent);
    // They end with the agent process.
    await t.host.shutdown();
    expect([alive(other!), alive(earlier!)]).toEqual([false, false]);
  });

  it('while another session runs a turn on the same process, what may be its work is left and said', async () => {
    const t = makeHost({ providers: [toolAgent()] });
    const a = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const b = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const dirA = tempDir('reap-a-');
    const dirB = tempDir('reap-b-');
    const turnB = b.prompt(`run setsid sh -c '${body(dirB)}'`);
    const workB = await pids(join(dirB, 'pids'), 2);
    await ticksPast(workB);
    const turnA = a.prompt(`run setsid sh -c '${body(dirA)}'`);
    const workA = await pids(join(dirA, 'pids'), 2);
    await a.cancel();
    await turnA.result;
    // A's tool started while B's turn ran: it might be B's, so it is not ended, and A is told.
    expect([...workA, ...workB].every(alive)).toBe(true);
    const reaped = (await waitHost(t, (e) => e.type === 'turn.reaped' && e.sessionId === a.id)) as Extract<
      HostEvent,
      { type: 'turn.reaped' }
    >;
    expect(reaped.left).toEqual(expect.arrayContaining(workA));
    expect(reaped.left).not.toEqual(expect.arrayContaining(workB));
    expect(reaped.ended).toEqual([]);
    expect(notices(a).find((n) => n.code === 'cancel_left_running')?.text).toMatch(/another session/);
    // B's own tool started before A's turn: B's cancel ends it.
    await b.cancel();
    await turnB.result;
    expect(workB.map(alive)).toEqual([false, false]);
    expect(workA.every(alive)).toBe(true);
    await t.host.shutdown();
    expect(workA.map(alive)).toEqual([false, false]);
  });

  it('a turn nobody cancelled ends nothing; a tool that finished is not touched', async () => {
    const t = makeHost({ providers: [toolAgent()] });
    const s = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const dir = tempDir('reap-');
    const r = await s.prompt(`run setsid -f sh -c 'echo $$ >> ${dir}/pids; sleep 30'`).result;
    expect(r.stopReason).toBe('end_turn');
    const [bg] = await pids(join(dir, 'pids'), 1);
    expect(alive(bg!)).toBe(true);
    expect(t.events.some((e) => e.type === 'turn.reaped')).toBe(false);
  });
});

describe('stopping an agent process ends its whole tree', () => {
  it('shutdown ends what the agent started outside its process group', async () => {
    const t = makeHost({ providers: [toolAgent()] });
    const s = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    const dir = tempDir('reap-');
    await s.prompt(`bg setsid -f sh -c '${body(dir)}'`).result;
    const work = await pids(join(dir, 'pids'), 2);
    expect(work.every(alive)).toBe(true);
    await t.host.shutdown();
    expect(work.map(alive)).toEqual([false, false]);
  });

  it('never ends a process that is not the agent’s, whatever its environment says', async () => {
    const { spawn } = await import('node:child_process');
    const t = makeHost({ providers: [toolAgent()] });
    const s = await t.host.newSession({ provider: 'tools', workspace: t.workspace });
    await s.prompt('pid').result;
    // Someone else's process claiming a tag (it cannot know the real one; the variable is set anyway).
    const other = spawn('sleep', ['30'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, TALARIA_AGENT_TAG: 'guess' },
    });
    strays.push(other.pid!);
    await t.host.shutdown();
    expect(alive(other.pid!)).toBe(true);
  });
});

describe('WorkLedger', () => {
  it('foreign windows: other owners’ work overlapping the turn; pruned once nothing can overlap', async () => {
    const { WorkLedger } = await import('../../src/host/ledger.js');
    let now = 0;
    const l = new WorkLedger(() => now);
    l.begin(null); // setting up a new session, 0..5
    now = 5;
    l.end(null);
    now = 10;
    l.begin('A'); // A's turn from 10
    l.begin('A'); // and a config op of A's, nested
    now = 12;
    l.begin('B');
    now = 20;
    l.end('B');
    l.end('A');
    now = 30;
    expect(l.foreign('A', 10)).toEqual([[12, 20]]);
    expect(l.foreign('B', 12)).toEqual([[10, Infinity]]);
    l.end('A');
    // Nothing in flight: nothing kept.
    expect(l.size).toBe(0);
  });
});
