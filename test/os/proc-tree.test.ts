import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bootTicks,
  findTag,
  isDying,
  parseStat,
  pidAlive as alive,
  readProcs,
  readStat,
  type ProcRow,
} from '../../src/os/proc-scan.js';
import { endTree, killTreesSync, newAgentTag, scanTree, selectTree, type TreeQuery } from '../../src/os/proc-tree.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** A detached `sh -c` with the given env; resolves once it runs. */
async function start(script: string, env: Record<string, string> = {}): Promise<number> {
  const c = spawn('/bin/sh', ['-c', script], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  await new Promise((r) => c.once('spawn', r));
  c.unref();
  started.push(c.pid!);
  return c.pid!;
}

describe('/proc reading', () => {
  it('parses stat lines whose name holds spaces and parentheses', () => {
    const line =
      '4242 (we) ird (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 10 18446744073709551615';
    expect(parseStat(line)).toEqual({
      pid: 4242,
      comm: 'we) ird (x)',
      state: 'S',
      ppid: 1,
      pgid: 4242,
      sid: 4242,
      start: 987654,
      flags: 4194560,
    });
    expect(parseStat('garbage')).toBeUndefined();
  });

  it('a process killed but not yet run to its end is dying; a live one, a gone one and one with an ignored signal are not', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid!;
    started.push(pid);
    await new Promise((r) => child.once('spawn', r));
    expect(isDying(pid)).toBe(false);
    // Stopped, it cannot act on a SIGTERM: the signal stays pending, as on a machine with no core free.
    process.kill(pid, 'SIGSTOP');
    await expect.poll(() => readStat(pid)?.state, { timeout: 30_000, interval: 5 }).toBe('T');
    process.kill(pid, 'SIGTERM');
    expect(isDying(pid)).toBe(true);
    process.kill(pid, 'SIGCONT');
    await expect.poll(() => alive(pid), { timeout: 30_000, interval: 5 }).toBe(false);
    expect(isDying(pid)).toBe(false);
    // SIGHUP ignored (nohup): pending, but not fatal.
    const deaf = spawn('sh', ['-c', 'trap "" HUP; kill -STOP $$; sleep 30'], { stdio: 'ignore' });
    started.push(deaf.pid!);
    await expect.poll(() => readStat(deaf.pid!)?.state, { timeout: 30_000, interval: 5 }).toBe('T');
    process.kill(deaf.pid!, 'SIGHUP');
    expect(isDying(deaf.pid!)).toBe(false);
  });

  it('pidAlive: a running process is; a zombie (signals still reach it) and a reaped one are not', async () => {
    expect(alive(process.pid)).toBe(true);
    // The background `head` ends when our end of its stdin closes, after the exec: its parent is
    // then `sleep`, which never waits for it. (fd 3: a background job's own stdin is /dev/null.)
    const parent = spawn('sh', ['-c', 'exec 3<&0; head -c1 <&3 & echo $!; exec sleep 30'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    started.push(parent.pid!);
    const zombie = Number(await new Promise<string>((r) => parent.stdout.once('data', (b: Buffer) => r(String(b)))));
    await expect.poll(() => readStat(parent.pid!)?.comm, { timeout: 30_000, interval: 5 }).toBe('sleep');
    parent.stdin.end();
    await expect.poll(() => readStat(zombie)?.state, { timeout: 30_000, interval: 5 }).toBe('Z');
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(alive(zombie)).toBe(false);
    expect(alive(parent.pid!)).toBe(true);
    process.kill(parent.pid!, 'SIGKILL');
    await expect.poll(() => alive(parent.pid!), { timeout: 30_000, interval: 5 }).toBe(false);
  });

  it('finds the tag only as a whole variable with the whole value', () => {
    const env = (...vars: string[]) => Buffer.from(vars.join('\0') + '\0');
    const tags = new Set(['abc']);
    expect(findTag(env('PATH=/bin', 'TALARIA_AGENT_TAG=abc'), tags)).toBe('abc');
    expect(findTag(env('TALARIA_AGENT_TAG=abc', 'HOME=/'), tags)).toBe('abc');
    expect(findTag(env('TALARIA_AGENT_TAG=abcd'), tags)).toBeUndefined();
    expect(findTag(env('XTALARIA_AGENT_TAG=abc'), tags)).toBeUndefined();
    expect(findTag(env('NOTE=TALARIA_AGENT_TAG=abc'), tags)).toBeUndefined();
    expect(findTag(Buffer.from('TALARIA_AGENT_TAG=abc'), tags)).toBe('abc'); // no trailing NUL
    expect(findTag(env('PATH=/bin'), tags)).toBeUndefined();
  });

  it('start times and the clock share one unit', async () => {
    const before = bootTicks()!;
    const pid = await start('sleep 30');
    const after = bootTicks()!;
    const s = readStat(pid)!.start;
    expect(s).toBeGreaterThanOrEqual(before);
    expect(s).toBeLessThanOrEqual(after);
  });

  it('reads the tag of processes started since `since`, of no older one', async () => {
    const tag = newAgentTag();
    const since = bootTicks()!;
    const tagged = await start('sleep 30', { TALARIA_AGENT_TAG: tag });
    const plain = await start('sleep 30');
    const procs = readProcs(new Set([tag]), since);
    expect(procs.get(tagged)?.tag).toBe(tag);
    expect(procs.get(plain)?.tag).toBeUndefined();
    expect(readProcs(new Set([tag]), bootTicks()! + 1000).get(tagged)?.tag).toBeUndefined();
  });
});

/** A process table: [pid, ppid, pgid, start, tag?, state?]. */
function table(rows: [number, number, number, number, string?, string?][]): Map<number, ProcRow> {
  return new Map(
    rows.map(([pid, ppid, pgid, start, tag, state]) => [
      pid,
      { pid, ppid, pgid, sid: pgid, start, state: state ?? 'S', comm: `p${pid}`, ...(tag ? { tag } : {}) },
    ]),
  );
}

describe('selectTree', () => {
  // 10 = Talaria (child of 5), 20 = the agent (own group, started at 100).
  const base: [number, number, number, number, string?, string?][] = [
    [1, 0, 1, 0],
    [5, 1, 5, 10],
    [10, 5, 10, 50],
    [20, 10, 20, 100, 'T'],
  ];
  const q: TreeQuery = { tag: 'T', agentPid: 20, agentStart: 100 };
  const pids = (rows: ProcRow[]) => rows.map((r) => r.pid).sort((a, b) => a - b);

  it('stop: the agent, its descendants, and whatever carries its tag — nothing else', () => {
    const procs = table([
      ...base,
      [21, 20, 20, 110], // in-group child, env scrubbed: a descendant
      [30, 1, 30, 120, 'T'], // setsid'd and re-parented: tagged
      [31, 30, 30, 121], // its child, env scrubbed: a descendant of a tagged one
      [40, 1, 40, 130, 'U'], // another agent's
      [41, 1, 41, 90, 'T'], // tagged but older than the agent: not its work
      [42, 1, 42, 130], // unrelated
      [43, 1, 43, 130, 'T', 'Z'], // already dead
    ]);
    expect(pids(selectTree(procs, q, 10).doomed)).toEqual([20, 21, 30, 31]);
  });

  it('never Talaria itself or its ancestors, even when they carry the tag', () => {
    const procs = table([
      [1, 0, 1, 0],
      [5, 1, 5, 200, 'T'],
      [10, 5, 10, 210, 'T'],
      [20, 10, 20, 100, 'T'],
    ]);
    expect(pids(selectTree(procs, q, 10).doomed)).toEqual([20]);
  });

  it('a recycled agent pid is not the agent: only tagged processes count then', () => {
    const procs = table([...base.slice(0, 3), [20, 1, 20, 500], [21, 20, 20, 510], [30, 1, 30, 520, 'T']]);
    expect(pids(selectTree(procs, q, 10).doomed)).toEqual([30]);
  });

  it('cancel: the turn’s escaped work; not the agent, its attached helpers, older work or foreign windows', () => {
    const procs = table([
      ...base,
      [21, 20, 20, 110, 'T'], // helper started before the turn (an MCP server)
      [22, 20, 20, 310, 'T'], // helper started during the turn (the tool's shell, still the agent's child)
      [23, 22, 23, 311, 'T'], // setsid'd by that shell, still attached: escaped
      [24, 23, 23, 312, 'T'], // its child
      [25, 1, 20, 320, 'T'], // in the agent's group but orphaned: escaped
      [26, 1, 26, 200, 'T'], // escaped before the turn (a dev server)
      [27, 26, 26, 330, 'T'], // forked now by that older work: still older work
      [28, 1, 28, 405, 'T'], // started while another session's request ran
      [29, 23, 23, 406, 'T'], // a child of the turn's tool, in that window: still the turn's
    ]);
    const sel = selectTree(procs, { ...q, turn: { from: 300, foreign: [[400, 410]] } }, 10);
    expect(pids(sel.doomed)).toEqual([23, 24, 25, 29]);
    expect(pids(sel.left)).toEqual([28]);
  });
});

describe('ending a tree', () => {
  it('SIGTERM, then SIGKILL for what ignores it; children forked meanwhile are caught', async () => {
    const tag = newAgentTag();
    const agentStart = bootTicks()!;
    const polite = await start('sleep 30', { TALARIA_AGENT_TAG: tag });
    // Survives SIGTERM, and answers it by forking one more (its pid written where the test reads it).
    const forked = join(mkdtempSync(join(tmpdir(), 'talaria-proc-')), 'forked');
    const stubborn = await start(`trap 'sleep 30 & echo $! > ${forked}' TERM; sleep 30 & wait; wait`, {
      TALARIA_AGENT_TAG: tag,
    });
    const q = { tag, agentPid: 999_999, agentStart };
    await expect.poll(() => scanTree(q).doomed.length, { timeout: 30_000, interval: 10 }).toBeGreaterThanOrEqual(3);
    // The grace is what lets the trap run; a loaded machine may need long for that (the old 300 ms
    // lost the race: the child was forked after the last scan).
    const r = await endTree(() => scanTree(q), 3000);
    expect(r.survived).toEqual([]);
    expect(r.ended.map((p) => p.pid)).toEqual(expect.arrayContaining([polite, stubborn]));
    const child = existsSync(forked) ? Number(readFileSync(forked, 'utf8')) : undefined;
    expect(child, 'the TERM trap forked').toBeDefined();
    expect(r.ended.map((p) => p.pid)).toContain(child);
    expect(alive(child!)).toBe(false);
    expect([alive(polite), alive(stubborn)]).toEqual([false, false]);
    expect(scanTree(q).doomed).toEqual([]);
  });

  it('killTreesSync ends several trees in one pass', async () => {
    const [a, b] = [newAgentTag(), newAgentTag()];
    const agentStart = bootTicks()!;
    const pa = await start('sleep 30', { TALARIA_AGENT_TAG: a });
    const pb = await start('sleep 30', { TALARIA_AGENT_TAG: b });
    const other = await start('sleep 30', { TALARIA_AGENT_TAG: newAgentTag() });
    expect(
      killTreesSync([
        { tag: a, agentPid: 999_998, agentStart },
        { tag: b, agentPid: 999_997, agentStart },
      ]),
    ).toBeGreaterThanOrEqual(2);
    for (const pid of [pa, pb]) await expect.poll(() => alive(pid), { timeout: 30_000, interval: 10 }).toBe(false);
    expect(alive(other)).toBe(true);
  });
});
