/**
 * End to end: a fake agent (real ACP over a real pipe, test/fakes/effects-agent.ts) asks Talaria
 * to write, read and run things WITHOUT asking permission first. Every one of those effects
 * passes the policy + broker: asked when the policy says so (and refused when denied or when
 * nobody answers), audited, and not asked twice after the agent's own request was allowed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AcpClient, type ClientOptions } from '../../src/session/client.js';
import { PERMISSION_DENIED, terminalCommandLine } from '../../src/session/effects.js';
import { evaluate } from '../../src/permission/policy.js';
import type { EventOf, SessionEvent } from '../../src/session/events.js';
import type { Session } from '../../src/session/session.js';
import type { PermissionAnswer, PermissionDecisionEvent } from '../../src/permission/types.js';
import { assistantText, tempDir } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

// Each test spawns an agent process (tsx): generous under a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const AGENT = fileURLToPath(new URL('../fakes/effects-agent.ts', import.meta.url));
// Tests run concurrently: close every agent at the end, not one test's after another's.
const clients: AcpClient[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

interface Rig {
  session: Session;
  cwd: string;
  audit: PermissionDecisionEvent[];
  asks: EventOf<'permission.asked'>[];
  decided: EventOf<'permission.decided'>[];
  /** Runs a prompt; returns each step's JSON result. */
  steps(
    prompt: string,
  ): Promise<{ ok?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } }[]>;
}

/** An agent session in a fresh workspace holding `.env`, `a.txt` and a `victim/` directory. */
async function rig(opts: ClientOptions & { answer?: PermissionAnswer } = {}): Promise<Rig> {
  const cwd = tempDir('talaria-effects-');
  writeFileSync(join(cwd, '.env'), 'API_KEY=very-secret\n');
  writeFileSync(join(cwd, 'a.txt'), 'plain\n');
  mkdirSync(join(cwd, 'victim'));
  writeFileSync(join(cwd, 'victim', 'keep.txt'), 'keep');
  const audit: PermissionDecisionEvent[] = [];
  const { answer, ...clientOpts } = opts;
  const client = await AcpClient.spawn(
    { command: process.execPath, args: nodeArgs(AGENT), cwd, env: {} },
    { ...clientOpts, onPermissionDecision: (e) => audit.push(e) },
  );
  clients.push(client);
  const session = await client.newSession({ cwd });
  const asks: EventOf<'permission.asked'>[] = [];
  const decided: EventOf<'permission.decided'>[] = [];
  session.subscribe((e: SessionEvent) => {
    if (e.type === 'permission.asked') {
      asks.push(e);
      if (answer) session.answerPermission(e.requestKey, answer, 'test');
    }
    if (e.type === 'permission.decided') decided.push(e);
  });
  return {
    session,
    cwd,
    audit,
    asks,
    decided,
    async steps(prompt) {
      const before = assistantText(session).length;
      const r = await session.prompt(prompt).result;
      expect(r.stopReason, JSON.stringify(r.error)).toBe('end_turn');
      return assistantText(session)
        .slice(before)
        .split('\n')
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l.replace(/^\|/, '')));
    },
  };
}

describe.concurrent('an agent that never asks: ask mode', () => {
  it('writing .envrc, reading .env and `rm -rf` through a terminal are each asked; rejected, none happens', async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'reject_once' } });
    const out = await r.steps(
      [
        `write ${join(r.cwd, '.envrc')} export PWNED=1`,
        `read ${join(r.cwd, '.env')}`,
        `run rm -rf ${join(r.cwd, 'victim')}`,
      ].join('\n'),
    );

    expect(r.asks.map((a) => a.title)).toEqual([
      `Write ${join(r.cwd, '.envrc')}`,
      `Read ${join(r.cwd, '.env')}`,
      `Run \`rm -rf ${join(r.cwd, 'victim')}\` in ${r.cwd}`,
    ]);
    // Talaria's own options; no "always" for a forced ask (sensitive file, dangerous command).
    for (const a of r.asks)
      expect((a.options as { kind: string }[]).map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
    expect(out.map((o) => o.error?.code)).toEqual([PERMISSION_DENIED, PERMISSION_DENIED, PERMISSION_DENIED]);
    expect(out[0]!.error!.data).toMatchObject({ reason: 'permission_denied', decidedBy: 'user', effect: 'fs.write' });
    expect(existsSync(join(r.cwd, '.envrc'))).toBe(false);
    expect(assistantText(r.session)).not.toContain('very-secret');
    expect(readFileSync(join(r.cwd, 'victim', 'keep.txt'), 'utf8')).toBe('keep');

    // The audit log: one decision per effect, with its subject.
    expect(r.audit.map((e) => [e.subject.effect, e.decidedBy, e.optionKind])).toEqual([
      ['fs.write', 'user', 'reject_once'],
      ['fs.read', 'user', 'reject_once'],
      ['terminal.create', 'user', 'reject_once'],
    ]);
    expect(r.audit[2]!.subject).toMatchObject({ toolKind: 'execute', command: `rm -rf ${join(r.cwd, 'victim')}` });
    expect(r.decided).toHaveLength(3);
  });

  it('nobody answers: each ask times out closed and the agent gets an error', async () => {
    const r = await rig({ permission: { mode: 'ask', timeoutMs: 200 } });
    const out = await r.steps(
      [`write ${join(r.cwd, '.envrc')} x`, `read ${join(r.cwd, '.env')}`, `run rm -rf ${join(r.cwd, 'victim')}`].join(
        '\n',
      ),
    );
    expect(out.map((o) => o.error?.data?.decidedBy)).toEqual(['timeout', 'timeout', 'timeout']);
    expect(existsSync(join(r.cwd, '.envrc'))).toBe(false);
    expect(existsSync(join(r.cwd, 'victim', 'keep.txt'))).toBe(true);
    expect(r.audit.map((e) => e.decidedBy)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('allowed once: the effect happens', async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'allow_once' } });
    const out = await r.steps(
      [`write ${join(r.cwd, '.envrc')} export OK=1`, `read ${join(r.cwd, '.env')}`, 'run echo hi'].join('\n'),
    );
    expect(out[0]).toEqual({ ok: {} });
    expect(out[1]).toEqual({ ok: { content: 'API_KEY=very-secret\n' } });
    expect(out[2]!.ok).toMatchObject({ exit: { exitCode: 0 }, output: 'hi\n' });
    expect(readFileSync(join(r.cwd, '.envrc'), 'utf8')).toBe('export OK=1');
    expect(r.asks).toHaveLength(3);
  });

  it('an ordinary read inside the workspace is not asked, but audited', async () => {
    const r = await rig({ permission: { mode: 'ask' } });
    const out = await r.steps(`read ${join(r.cwd, 'a.txt')}`);
    expect(out).toEqual([{ ok: { content: 'plain\n' } }]);
    expect(r.asks).toHaveLength(0);
    expect(r.decided).toHaveLength(0); // allowed without asking: the audit log only
    expect(r.audit).toEqual([
      expect.objectContaining({
        decidedBy: 'policy',
        optionKind: 'allow_once',
        subject: expect.objectContaining({ effect: 'fs.read' }),
      }),
    ]);
  });

  it('a deny rule refuses without asking', async () => {
    const r = await rig({
      permission: { mode: 'auto', rules: [{ decision: 'deny', toolKind: 'edit', pathGlob: '*.txt' }] },
    });
    const out = await r.steps(`write ${join(r.cwd, 'a.txt')} changed`);
    expect(out[0]!.error).toMatchObject({ code: PERMISSION_DENIED, data: { decidedBy: 'policy' } });
    expect(readFileSync(join(r.cwd, 'a.txt'), 'utf8')).toBe('plain\n');
    expect(r.asks).toHaveLength(0);
  });
});

describe.concurrent('other modes', () => {
  it('auto: writes and commands go ahead unasked (audited); a dangerous command still asks', async () => {
    const r = await rig({ permission: { mode: 'auto' }, answer: { choice: 'reject_once' } });
    const out = await r.steps(
      [`write ${join(r.cwd, 'b.txt')} new`, 'run echo auto', `run rm -rf ${join(r.cwd, 'victim')}`].join('\n'),
    );
    expect(out[0]).toEqual({ ok: {} });
    expect(out[1]!.ok).toMatchObject({ output: 'auto\n' });
    expect(out[2]!.error?.code).toBe(PERMISSION_DENIED);
    expect(r.asks.map((a) => a.title)).toEqual([`Run \`rm -rf ${join(r.cwd, 'victim')}\` in ${r.cwd}`]);
    expect(r.audit.map((e) => e.decidedBy)).toEqual(['policy', 'policy', 'user']);
    expect(existsSync(join(r.cwd, 'victim', 'keep.txt'))).toBe(true);
  });

  it('accept-edits: a write inside is allowed, a terminal asks', async () => {
    const r = await rig({ permission: { mode: 'accept-edits' }, answer: { choice: 'reject_once' } });
    const out = await r.steps([`write ${join(r.cwd, 'b.txt')} new`, 'run echo hi'].join('\n'));
    expect(out[0]).toEqual({ ok: {} });
    expect(out[1]!.error?.code).toBe(PERMISSION_DENIED);
    expect(r.asks).toHaveLength(1);
  });

  it('accept-edits: a write through a workspace symlink pointing outside is refused (outside the roots)', async () => {
    const r = await rig({ permission: { mode: 'accept-edits' }, answer: { choice: 'allow_once' } });
    const outside = tempDir('talaria-effects-outside-');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(outside, join(r.cwd, 'escape'));
    const out = await r.steps(`write ${join(r.cwd, 'escape', 'planted.txt')} pwned`);
    expect(out[0]!.error).toMatchObject({ data: { reason: 'outside_roots' } });
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });
});

describe.concurrent('no double ask', () => {
  it('the agent asks for an edit, the user allows it, its fs/write_text_file is covered', async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'allow_once' } });
    const out = await r.steps(`ask-write ${join(r.cwd, 'notes.md')} hello`);
    expect(out).toEqual([{ ok: {} }]);
    expect(readFileSync(join(r.cwd, 'notes.md'), 'utf8')).toBe('hello');
    expect(r.asks).toHaveLength(1); // the agent's own request only
    expect(r.audit.map((e) => [e.decidedBy, e.subject.effect ?? 'agent'])).toEqual([
      ['user', 'agent'],
      ['grant', 'fs.write'],
    ]);
  });

  it("but a sensitive file is asked again in Talaria's words (the agent wrote the first title)", async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'allow_once' } });
    await r.steps(`ask-write ${join(r.cwd, '.envrc')} export A=1`);
    expect(readFileSync(join(r.cwd, '.envrc'), 'utf8')).toBe('export A=1');
    expect(r.asks.map((a) => a.title)).toEqual([`Write ${join(r.cwd, '.envrc')}`, `Write ${join(r.cwd, '.envrc')}`]);
    expect(r.audit.map((e) => [e.decidedBy, e.subject.effect ?? 'agent'])).toEqual([
      ['user', 'agent'],
      ['user', 'fs.write'],
    ]);
  });

  it('the agent asks for a command, the user allows it, its terminal/create is covered', async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'allow_once' } });
    const out = await r.steps('ask-run echo covered');
    expect(out[0]!.ok).toMatchObject({ output: 'covered\n' });
    expect(r.asks).toHaveLength(1);
    expect(r.audit.map((e) => e.decidedBy)).toEqual(['user', 'grant']);
  });

  it('a rejected request covers nothing, and a later write of the same file asks again', async () => {
    const r = await rig({ permission: { mode: 'ask' }, answer: { choice: 'reject_once' } });
    const out = await r.steps(
      [`ask-write ${join(r.cwd, 'notes.md')} hello`, `write ${join(r.cwd, 'notes.md')} sneaky`].join('\n'),
    );
    expect(out[0]).toEqual({ ok: { permission: 'rejected' } });
    expect(out[1]!.error?.code).toBe(PERMISSION_DENIED);
    expect(existsSync(join(r.cwd, 'notes.md'))).toBe(false);
    expect(r.asks).toHaveLength(2);
  });
});

describe('the command line a terminal is judged by', () => {
  const t = (command: string, args: string[] = [], env: { name: string; value: string }[] = []) =>
    terminalCommandLine({ kind: 'terminal.create', sessionId: 's', command, args, env, cwd: '/ws', realCwd: '/ws' });

  it.each([
    ['a shell line as sent', t('cd src && npm test'), 'cd src && npm test'],
    ['an argv, quoted', t('git', ['commit', '-m', 'two words']), "git commit -m 'two words'"],
    ['bash -lc reduced to its script', t('bash', ['-lc', 'npm test']), 'npm test'],
    ['extra env in front', t('npm', ['test'], [{ name: 'CI', value: '1' }]), 'CI=1 npm test'],
    [
      'secret-looking values kept out',
      t('npm', ['test'], [{ name: 'API_KEY', value: 'sk-live' }]),
      "API_KEY='[redacted]' npm test",
    ],
  ])('%s', (_name, line, expected) => {
    expect(line).toBe(expected);
  });

  it('extra env defeats an allow rule written for the bare command (NODE_OPTIONS can load any code)', () => {
    const subject = (command: string) => ({
      sessionId: 's',
      toolCallId: 't',
      toolKind: 'execute',
      command,
      paths: [],
      roots: ['/ws'],
      effect: 'terminal.create' as const,
    });
    const rules = [{ decision: 'allow' as const, command: 'npm test' }];
    expect(evaluate(subject(t('npm', ['test'])), { mode: 'ask', rules }).decision).toBe('allow');
    expect(
      evaluate(subject(t('npm', ['test'], [{ name: 'NODE_OPTIONS', value: '--require /ws/evil.js' }])), {
        mode: 'ask',
        rules,
      }).decision,
    ).toBe('ask');
  });

  it('env that changes what runs (LD_PRELOAD, PATH…) makes the terminal dangerous even in auto; a plain marker does not', () => {
    const judge = (env: { name: string; value: string }[]) =>
      evaluate(
        {
          sessionId: 's',
          toolCallId: 't',
          toolKind: 'execute',
          command: t('echo', ['hi'], env),
          paths: [],
          roots: ['/ws'],
        },
        { mode: 'auto', rules: [] },
      );
    expect(judge([{ name: 'CLAUDECODE', value: '1' }]).decision).toBe('allow');
    for (const name of ['LD_PRELOAD', 'PATH', 'NODE_OPTIONS', 'PYTHONSTARTUP', 'GIT_SSH_COMMAND']) {
      expect(
        judge([
          { name: 'CLAUDECODE', value: '1' },
          { name, value: '/tmp/x' },
        ]).forcedAsk,
        name,
      ).toBe('dangerous_command');
    }
  });

  it('an argv that runs a script through a shell is judged by that script', () => {
    expect(
      evaluate(
        {
          sessionId: 's',
          toolCallId: 't',
          toolKind: 'execute',
          command: t('/bin/sh', ['-c', 'rm -rf ~', 'x']),
          paths: [],
          roots: ['/ws'],
        },
        { mode: 'auto', rules: [] },
      ).forcedAsk,
    ).toBe('dangerous_command');
  });
});
