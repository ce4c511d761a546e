import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createTerminalManager,
  MAX_OUTPUT_BYTE_LIMIT,
  TailBuffer,
  type TerminalManager,
} from '../../src/protocol/client-terminal.js';
import type { ClientEffect } from '../../src/protocol/effect.js';
import { RequestError } from '../../src/protocol/wire-error.js';
import { until } from '../until.js';

const S = 'sess-1';
const S2 = 'sess-2';
let base: string;
let root: string;
let extra: string;
let outside: string;
let tm: TerminalManager;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'talaria-term-')));
  root = path.join(base, 'root');
  extra = path.join(base, 'extra');
  outside = path.join(base, 'outside');
  for (const d of [root, path.join(root, 'sub'), extra, outside]) mkdirSync(d);
  writeFileSync(path.join(root, 'file.txt'), 'x');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeEach(() => {
  tm = createTerminalManager({
    rootsFor: (id) => (id === S || id === S2 ? [root, extra] : undefined),
    env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', SESSION_VAR: 'from-session' }),
  });
});
afterEach(() => tm.disposeAll());

async function run(command: string, args?: string[], extraParams: Record<string, unknown> = {}) {
  const { terminalId } = await tm.create({ sessionId: S, command, ...(args ? { args } : {}), ...extraParams });
  const exit = await tm.waitForExit({ sessionId: S, terminalId });
  const out = await tm.output({ sessionId: S, terminalId });
  return { terminalId, exit, out };
}

async function failure(p: Promise<unknown>): Promise<RequestError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(RequestError);
  return e as RequestError;
}

/** Gone = no such pid, or only a zombie awaiting its (possibly non-reaping) new parent. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .startsWith('Z');
  } catch {
    return true;
  }
}

/** Whether any live process has `arg` in its command line. */
function processWithArg(arg: string): boolean {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(arg) && !isGone(Number(pid))) return true;
    } catch {
      // exited while we looked
    }
  }
  return false;
}

function pidsIn(text: string, names: string[]): number[] | undefined {
  const pids = names.map((n) => new RegExp(`${n}=(\\d+)\\n`).exec(text)?.[1]);
  return pids.every((p) => p !== undefined) ? pids.map(Number) : undefined;
}

async function outputOf(terminalId: string, sessionId = S): Promise<string> {
  return (await tm.output({ sessionId, terminalId })).output;
}

describe('terminal/create + output + wait_for_exit', () => {
  it('echo: output, exit code 0, exit status in output', async () => {
    const { exit, out } = await run('echo', ['hello']);
    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(out).toEqual({ output: 'hello\n', truncated: false, exitStatus: { exitCode: 0, signal: null } });
  });

  it.each([
    ['non-zero exit', 'exit 3', undefined, '', 3],
    ['shell string', 'echo a && echo b | tr b c; echo $((1+2))', undefined, 'a\nc\n3\n', 0],
    ['shell string with empty args', 'printf "%s" one-two', [], 'one-two', 0],
  ])('%s', async (_n, command, args, expected, code) => {
    const { exit, out } = await run(command, args);
    expect(out.output).toBe(expected);
    expect(exit.exitCode).toBe(code);
  });

  it('args run without a shell: spaces and $HOME stay literal', async () => {
    const { out } = await run('printf', ['%s|%s|%s\n', 'a b', '$HOME', '`id`;']);
    expect(out.output).toBe('a b|$HOME|`id`;\n');
  });

  it('merges stdout and stderr', async () => {
    const { out } = await run('echo out; echo err >&2');
    expect(out.output.split('\n').filter(Boolean).sort()).toEqual(['err', 'out']);
  });

  it('waitForExit after the exit, twice, gives the same status', async () => {
    const { terminalId, exit } = await run('exit 7');
    await expect(tm.waitForExit({ sessionId: S, terminalId })).resolves.toEqual(exit);
    expect(exit).toEqual({ exitCode: 7, signal: null });
  });

  it('does not hang on a backgrounded straggler, and kills it when the command ends', async () => {
    const { exit, out } = await run('sleep 1000 & echo "bg=$!"');
    expect(exit.exitCode).toBe(0);
    const [bg] = pidsIn(out.output, ['bg'])!;
    await until(() => isGone(bg!));
  });

  it('a command that cannot start -> -32603 spawn_failed', async () => {
    const e = await failure(tm.create({ sessionId: S, command: path.join(base, 'no-such-binary'), args: ['x'] }));
    expect(e.code).toBe(-32603);
    expect(e.data).toMatchObject({ reason: 'spawn_failed', code: 'ENOENT' });
  });

  it.each([
    ['args not strings', { command: 'echo', args: [1] }],
    ['empty command', { command: '' }],
    ['bad env entry', { command: 'true', env: [{ name: 'A' }] }],
    ['negative outputByteLimit', { command: 'true', outputByteLimit: -1 }],
  ])('invalid params (%s) -> -32602', async (_n, params) => {
    const e = await failure(tm.create({ sessionId: S, ...(params as { command: string }) }));
    expect(e.code).toBe(-32602);
  });
});

describe('environment', () => {
  const saved = process.env.FAKE_API_KEY;
  beforeEach(() => {
    process.env.FAKE_API_KEY = 'sk-parent-secret';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.FAKE_API_KEY;
    else process.env.FAKE_API_KEY = saved;
  });

  it('session env + request env, never the parent process env', async () => {
    const { out } = await run('env', undefined, {
      env: [
        { name: 'REQ_VAR', value: 'from request' },
        { name: 'SESSION_VAR', value: 'overridden' },
      ],
    });
    const lines = out.output.split('\n');
    expect(lines).toContain('REQ_VAR=from request');
    expect(lines).toContain('SESSION_VAR=overridden');
    expect(out.output).not.toContain('FAKE_API_KEY');
    expect(out.output).not.toContain('sk-parent-secret');
  });
});

describe('cwd', () => {
  it('defaults to the first root', async () => {
    expect((await run('pwd')).out.output).toBe(`${root}\n`);
  });

  it.each([
    ['a subdirectory', () => path.join(root, 'sub')],
    ['the second root', () => extra],
  ])('accepts %s', async (_n, cwd) => {
    expect((await run('pwd', undefined, { cwd: cwd() })).out.output).toBe(`${cwd()}\n`);
  });

  it.each([
    ['outside the roots', () => outside, -32602, 'outside_roots'],
    ['a `..` escape', () => `${root}/../outside`, -32602, 'outside_roots'],
    ['relative', () => 'sub', -32602, 'not_absolute'],
    ['a file', () => path.join(root, 'file.txt'), -32602, 'not_a_directory'],
    ['missing', () => path.join(root, 'missing'), -32002, undefined],
  ])('rejects %s', async (_n, cwd, code, reason) => {
    const e = await failure(tm.create({ sessionId: S, command: `touch ${path.join(outside, 'ran')}`, cwd: cwd() }));
    expect(e.code).toBe(code);
    if (reason) expect(e.data).toMatchObject({ reason });
    expect(() => readFileSync(path.join(outside, 'ran'))).toThrow(); // nothing ran
  });
});

describe('output byte limit', () => {
  it('keeps the tail and cuts at a UTF-8 character boundary', async () => {
    // 20 ASCII + 5 two-byte chars; the last 9 bytes start in the middle of an "é".
    const { out } = await run('printf', ['%s', `${'x'.repeat(20)}ééééé`], { outputByteLimit: 9 });
    expect(out.output).toBe('éééé');
    expect(out.truncated).toBe(true);
  });

  it('keeps the last bytes of a large output', async () => {
    const { out } = await run("head -c 200000 /dev/zero | tr '\\0' a; printf END", undefined, {
      outputByteLimit: 1000,
    });
    expect(out.truncated).toBe(true);
    expect(out.output).toBe(`${'a'.repeat(997)}END`);
  });

  it('uses the manager default when the request gives none', async () => {
    const small = createTerminalManager({ rootsFor: () => [root], env: () => ({}), defaultOutputByteLimit: 4 });
    const { terminalId } = await small.create({ sessionId: S, command: 'printf', args: ['abcdef'] });
    await small.waitForExit({ sessionId: S, terminalId });
    expect(await small.output({ sessionId: S, terminalId })).toMatchObject({ output: 'cdef', truncated: true });
    await small.disposeAll();
  });

  it('clamps what the agent asks: 10 GB keeps only the maximum', async () => {
    const { out } = await run("head -c 5000000 /dev/zero | tr '\\0' a; printf END", undefined, {
      outputByteLimit: 10 * 1024 ** 3,
    });
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.output)).toBe(MAX_OUTPUT_BYTE_LIMIT);
    expect(out.output.endsWith('aEND')).toBe(true);
  });

  it("clamps to the manager's maximum, the default included", async () => {
    const small = createTerminalManager({
      rootsFor: () => [root],
      env: () => ({}),
      maxOutputByteLimit: 4,
      defaultOutputByteLimit: 100,
    });
    for (const extraParams of [{ outputByteLimit: 10 * 1024 ** 3 }, {}]) {
      const { terminalId } = await small.create({ sessionId: S, command: 'printf', args: ['abcdef'], ...extraParams });
      await small.waitForExit({ sessionId: S, terminalId });
      expect(await small.output({ sessionId: S, terminalId })).toMatchObject({ output: 'cdef', truncated: true });
    }
    await small.disposeAll();
  });

  it('TailBuffer holds back an incomplete trailing character while running', () => {
    const b = new TailBuffer(100);
    const e = Buffer.from('é');
    b.push(Buffer.concat([Buffer.from('ab'), e.subarray(0, 1)]));
    expect(b.read(false)).toEqual({ text: 'ab', truncated: false });
    b.push(e.subarray(1));
    expect(b.read(false)).toEqual({ text: 'abé', truncated: false });
  });
});

describe('terminal/kill and terminal/release', () => {
  it('kill a long sleep: wait_for_exit reports a signal; output stays readable until release', async () => {
    const { terminalId } = await tm.create({ sessionId: S, command: 'echo started; sleep 1000' });
    await until(async () => (await outputOf(terminalId)).includes('started'));
    await tm.kill({ sessionId: S, terminalId });
    const exit = await tm.waitForExit({ sessionId: S, terminalId });
    expect(exit.exitCode).toBeNull();
    expect(exit.signal).toBe('SIGTERM');
    const out = await tm.output({ sessionId: S, terminalId });
    expect(out).toEqual({ output: 'started\n', truncated: false, exitStatus: exit });
    await tm.kill({ sessionId: S, terminalId }); // killing an exited terminal is fine
    await tm.release({ sessionId: S, terminalId });
    expect((await failure(tm.output({ sessionId: S, terminalId }))).code).toBe(-32002);
  });

  it('release of a running process kills it and frees the id', async () => {
    const { terminalId } = await tm.create({ sessionId: S, command: 'echo "pid=$$"; exec sleep 1000' });
    const [pid] = await until(async () => pidsIn(await outputOf(terminalId), ['pid']));
    const waiting = tm.waitForExit({ sessionId: S, terminalId });
    await tm.release({ sessionId: S, terminalId });
    expect((await waiting).signal).toBe('SIGKILL');
    await until(() => isGone(pid!));
    for (const call of [tm.output, tm.waitForExit, tm.kill, tm.release]) {
      expect((await failure(call({ sessionId: S, terminalId }))).code).toBe(-32002);
    }
  });

  it("unknown terminal ids, another session's terminal and an unknown session -> -32002", async () => {
    for (const call of [tm.output, tm.waitForExit, tm.kill, tm.release]) {
      expect((await failure(call({ sessionId: S, terminalId: 'term_nope' }))).code).toBe(-32002);
    }
    const { terminalId } = await tm.create({ sessionId: S, command: 'true' });
    expect((await failure(tm.output({ sessionId: S2, terminalId }))).code).toBe(-32002);
    const e = await failure(tm.create({ sessionId: 'ghost', command: 'true' }));
    expect(e.code).toBe(-32002);
    expect(e.data).toEqual({ sessionId: 'ghost' });
  });

  it('limits live terminals; release makes room', async () => {
    const one = createTerminalManager({ rootsFor: () => [root], env: () => ({}), maxTerminals: 1 });
    const { terminalId } = await one.create({ sessionId: S, command: 'true' });
    const e = await failure(one.create({ sessionId: S, command: 'true' }));
    expect(e.data).toMatchObject({ reason: 'too_many_terminals' });
    await one.release({ sessionId: S, terminalId });
    await expect(one.create({ sessionId: S, command: 'true' })).resolves.toHaveProperty('terminalId');
    await one.disposeAll();
  });
});

describe('dispose', () => {
  // $$ is the shell, c is its child, gc a grandchild under a nested shell.
  const tree = 'echo "sh=$$"; sleep 1000 & echo "c=$!"; sh -c \'sleep 1000 & echo "gc=$!"; wait\' & wait';

  it('disposeAll leaves no orphans (child and grandchild gone)', async () => {
    const { terminalId } = await tm.create({ sessionId: S, command: tree });
    const pids = await until(async () => pidsIn(await outputOf(terminalId), ['sh', 'c', 'gc']));
    expect(pids.every((p) => !isGone(p))).toBe(true);
    await tm.disposeAll();
    for (const p of pids) await until(() => isGone(p));
    expect((await failure(tm.output({ sessionId: S, terminalId }))).code).toBe(-32002);
  });

  it.each([
    ['disposeAll', () => tm.disposeAll()],
    ['disposeSession', () => tm.disposeSession(S)],
  ])('a create still starting when %s runs fails and leaves no process', async (_n, dispose) => {
    const marker = `talaria-marker-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const creating = tm.create({ sessionId: S, command: 'sh', args: ['-c', 'sleep 1000; : "$1"', 'sh', marker] });
    await dispose();
    const e = await failure(creating);
    expect(e.data).toMatchObject({ reason: 'disposed' });
    await until(() => !processWithArg(marker));
  });

  it("disposeSession kills only that session's terminals", async () => {
    const a = await tm.create({ sessionId: S, command: tree });
    const b = await tm.create({ sessionId: S2, command: 'echo "pid=$$"; exec sleep 1000' });
    const pidsA = await until(async () => pidsIn(await outputOf(a.terminalId), ['sh', 'c', 'gc']));
    const [pidB] = await until(async () => pidsIn(await outputOf(b.terminalId, S2), ['pid']));
    await tm.disposeSession(S);
    for (const p of pidsA) await until(() => isGone(p));
    expect(isGone(pidB!)).toBe(false);
    expect((await tm.output({ sessionId: S2, terminalId: b.terminalId })).exitStatus).toBeUndefined();
    await tm.disposeAll();
    await until(() => isGone(pidB!));
  });
});

describe('authorize: decided before anything starts', () => {
  it('is asked with the command, args, env and both cwds; a refusal starts nothing', async () => {
    const seen: ClientEffect[] = [];
    const gated = createTerminalManager({
      rootsFor: () => [root],
      env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }),
      authorize: async (e) => {
        seen.push(e);
        throw new RequestError(-32000, 'Permission denied', { reason: 'permission_denied' });
      },
    });
    const marker = path.join(root, 'ran-refused');
    const e = await failure(
      gated.create({
        sessionId: S,
        command: `touch ${marker}`,
        cwd: path.join(root, 'sub'),
        env: [{ name: 'A', value: '1' }],
      }),
    );
    expect(e.data).toEqual({ reason: 'permission_denied' });
    expect(seen).toEqual([
      {
        kind: 'terminal.create',
        sessionId: S,
        command: `touch ${marker}`,
        args: [],
        env: [{ name: 'A', value: '1' }],
        cwd: path.join(root, 'sub'),
        realCwd: path.join(root, 'sub'),
      },
    ]);
    expect(readdirSync(root)).not.toContain('ran-refused');
    await gated.disposeAll();
  });

  it('an env name that is not an identifier is refused before authorize is asked', async () => {
    let asked = 0;
    const gated = createTerminalManager({
      rootsFor: () => [root],
      env: () => ({}),
      authorize: async () => void asked++,
    });
    for (const name of ['#', 'A B', 'X=1', '', '1A']) {
      const e = await failure(gated.create({ sessionId: S, command: 'true', env: [{ name, value: '' }] }));
      expect(e.code).toBe(-32602);
    }
    expect(asked).toBe(0);
  });

  it('a cwd outside the roots is refused before authorize is asked', async () => {
    let asked = 0;
    const gated = createTerminalManager({
      rootsFor: () => [root],
      env: () => ({}),
      authorize: async () => void asked++,
    });
    await failure(gated.create({ sessionId: S, command: 'true', cwd: outside }));
    expect(asked).toBe(0);
  });

  it('a session disposed while the ask is pending starts nothing', async () => {
    let release!: () => void;
    const waiting = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const askedP = new Promise<void>((r) => (asked = r));
    const gated = createTerminalManager({
      rootsFor: () => [root],
      env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }),
      authorize: async () => {
        asked();
        await waiting;
      },
    });
    const marker = path.join(root, 'ran-after-dispose');
    const p = failure(gated.create({ sessionId: S, command: `touch ${marker}` }));
    await askedP;
    await gated.disposeSession(S);
    release();
    expect((await p).data).toMatchObject({ reason: 'disposed' });
    expect(readdirSync(root)).not.toContain('ran-after-dispose');
  });
});
