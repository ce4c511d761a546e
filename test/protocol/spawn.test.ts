import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnAgent, type AgentProcess } from '../../src/protocol/spawn.js';
import { TalariaError } from '../../src/protocol/errors.js';
import { fake } from './fake-agents.js';

const started: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.terminate({ graceMs: 200 })));
});

async function start(opts: Parameters<typeof spawnAgent>[0]): Promise<AgentProcess> {
  const p = await spawnAgent(opts);
  started.push(p);
  return p;
}

function readAll(p: AgentProcess): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (c: string) => (out += c));
    p.stdout.on('end', () => resolve(out));
  });
}

function node(code: string): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: ['-e', code], cwd: tmpdir() };
}

describe('spawnAgent: environment', () => {
  it('does not pass the parent API keys; passes allow-listed, inherited and explicit variables', async () => {
    const saved = { ...process.env };
    process.env.OPENAI_API_KEY = 'sk-parent-openai';
    process.env.ANTHROPIC_API_KEY = 'sk-parent-anthropic';
    process.env.GITHUB_TOKEN = 'ghp-parent';
    process.env.TALARIA_TEST_SETTING = 'plain';
    try {
      const spec = fake('print-env');
      const p = await start({
        ...spec,
        cwd: tmpdir(), // any cwd: the tsx loader is referenced by absolute path
        inherit: ['TALARIA_TEST_SETTING', 'GITHUB_TOKEN'],
        env: { EXPLICIT_ONE: 'yes', HERMES_API_KEY: 'given-by-user' },
      });
      const env = JSON.parse(await readAll(p)) as Record<string, string>;
      expect(env.OPENAI_API_KEY).toBeUndefined();
      expect(env.ANTHROPIC_API_KEY).toBeUndefined();
      expect(env.GITHUB_TOKEN).toBeUndefined(); // secret-looking names are never inherited
      expect(env.TALARIA_TEST_SETTING).toBe('plain');
      expect(env.EXPLICIT_ONE).toBe('yes');
      expect(env.HERMES_API_KEY).toBe('given-by-user');
      expect(env.PATH).toBe(process.env.PATH);
      expect((await p.exited).code).toBe(0);
    } finally {
      for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'TALARIA_TEST_SETTING']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('runs in the given cwd', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'talaria-cwd-'));
    try {
      const p = await start({ ...node('process.stdout.write(process.cwd())'), cwd: dir });
      expect(await readAll(p)).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('spawnAgent: errors', () => {
  it('ENOENT → spawn_failed with a human message', async () => {
    const err = await spawnAgent({ command: 'talaria-no-such-agent-xyz', cwd: tmpdir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TalariaError);
    expect((err as TalariaError).code).toBe('spawn_failed');
    expect((err as TalariaError).message).toMatch(/command not found: talaria-no-such-agent-xyz/);
    expect((err as TalariaError).details).toMatchObject({ errno: 'ENOENT' });
  });

  it('EACCES → spawn_failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'talaria-eacces-'));
    const file = join(dir, 'not-executable');
    writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    try {
      const err = await spawnAgent({ command: file, cwd: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TalariaError);
      expect((err as TalariaError).code).toBe('spawn_failed');
      expect((err as TalariaError).message).toMatch(/permission denied/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing or empty cwd → spawn_failed before anything runs', async () => {
    const missing = await spawnAgent({
      command: process.execPath,
      cwd: join(tmpdir(), 'talaria-nope-' + process.pid),
    }).catch((e: unknown) => e);
    expect((missing as TalariaError).code).toBe('spawn_failed');
    expect((missing as TalariaError).message).toMatch(/working directory .* does not exist/);
    const empty = await spawnAgent({ command: process.execPath, cwd: '' }).catch((e: unknown) => e);
    expect((empty as TalariaError).code).toBe('spawn_failed');
  });
});

describe('spawnAgent: lifecycle', () => {
  it('captures stderr; exited carries code and the tail is complete', async () => {
    const p = await start(node('process.stderr.write("x".repeat(5000) + "\\nthe real reason\\n"); process.exit(7)'));
    expect(await p.exited).toEqual({ code: 7, signal: null });
    expect(p.hasExited).toBe(true);
    expect(p.stderrTail(40)).toMatch(/the real reason\n$/);
    expect(p.stderrTail().length).toBe(2000);
  });

  it('kill() signals the whole process group (a grandchild holding stdout dies too)', async () => {
    // The grandchild inherits our stdout pipe: EOF arrives only when it is gone as well.
    const p = await start(
      node(
        'const c = require("child_process").spawn("sleep", ["1000"], {stdio: "inherit"}); process.stdout.write(String(c.pid) + "\\n"); setInterval(() => {}, 1e6)',
      ),
    );
    const out = readAll(p);
    await new Promise<void>((r) => p.stdout.once('data', () => r()));
    p.kill('SIGTERM');
    expect((await p.exited).signal).toBe('SIGTERM');
    await out; // resolves only once the grandchild closed the pipe
  });

  it('terminate() closes stdin first: a well-behaved child exits 0 without a signal', async () => {
    const p = await start(node('process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'));
    expect(await p.terminate({ graceMs: 5000 })).toEqual({ code: 0, signal: null });
  });

  it('terminate() escalates to SIGTERM, then SIGKILL', async () => {
    const p = await start(
      node(
        'process.on("SIGTERM", () => {}); process.stdin.resume(); process.stdin.on("end", () => {}); process.stdout.write("ready"); setInterval(() => {}, 1e6)',
      ),
    );
    await new Promise<void>((r) => p.stdout.once('data', () => r()));
    const ex = await p.terminate({ graceMs: 150 });
    expect(ex).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await p.terminate()).toEqual(ex); // idempotent
    p.kill(); // no-op once exited
  });

  it('terminate() on a child that stops at SIGTERM', async () => {
    const p = await start(node('process.stdin.resume(); process.stdout.write("ready"); setInterval(() => {}, 1e6)'));
    await new Promise<void>((r) => p.stdout.once('data', () => r()));
    expect(await p.terminate({ graceMs: 150 })).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
