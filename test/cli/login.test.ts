/**
 * `talaria login` with the real CLI against a fake agent over real pipes (test/fakes/bin/auth-agent.ts):
 * its `session/new` answers auth_required until its config file exists. The refusal becomes an
 * `auth` gap in `doctor` listing the agent's methods; `login` signs in through `authenticate`
 * (agent methods) or the agent's own command in a pseudo-terminal (terminal methods, driven in tmux);
 * then `talaria run` works.
 */
import { describe, it, expect, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BIN, TmuxPane, authFakeHome, hasTmux, runCli } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 120_000) });

/** A Talaria home whose config.json defines `authfake`, and the file the agent's sign-in writes. */
function setup() {
  const { home, cwd, agentConfig } = authFakeHome('login');
  const env = { TALARIA_HOME: home, NO_COLOR: '1' };
  return { home, cwd, env, agentConfig, cli: (args: string[]) => runCli(args, { cwd, env }) };
}

interface DoctorJson {
  agents: {
    providerId: string;
    ready: boolean;
    gaps: { code: string; message: string; fix: string; authMethods?: { id: string; kind: string }[] }[];
  }[];
}

describe('talaria login (agent-type methods, no terminal needed)', () => {
  it('auth_required at session/new becomes an auth gap listing the methods; `login AGENT token` signs in; run then works', async () => {
    const t = setup();
    const first = await t.cli(['run', '--agent', 'authfake', 'hello']);
    expect(first.code).toBe(EXIT.NOT_READY);
    expect(first.stderr).toContain('no key configured');
    expect(first.stderr).toContain('Sign in with: talaria login authfake');

    const doctor = await t.cli(['doctor', '--agent', 'authfake', '--json']);
    expect(doctor.code).toBe(EXIT.NOT_READY);
    const gap = (JSON.parse(doctor.stdout) as DoctorJson).agents
      .find((a) => a.providerId === 'authfake')!
      .gaps.find((g) => g.code === 'auth')!;
    expect(gap.message).toContain('Authentication required: no key configured');
    expect(gap.message).toContain('token — Use the built-in token (agent)');
    // The session listed two agent-type methods (the host's initialize offers no terminal auth); the
    // gap asked the agent as a sign-in does, so the terminal ones are listed and in the fix.
    expect(gap.authMethods!.map((m) => [m.id, m.kind])).toEqual([
      ['token', 'agent'],
      ['expired', 'agent'],
      ['setup', 'terminal'],
      ['meta-setup', 'terminal'],
    ]);
    expect(gap.fix).toBe('talaria login authfake METHOD (one of: token, expired, setup, meta-setup)');
    const human = await t.cli(['doctor', '--agent', 'authfake']);
    expect(human.stdout).toContain(
      'not ready: talaria login authfake METHOD (one of: token, expired, setup, meta-setup)',
    );

    const login = await t.cli(['login', 'authfake', 'token']);
    expect(login.stderr).toBe('');
    expect(login.stdout).toContain('authfake is signed in and ready.');
    expect(login.code).toBe(EXIT.OK);
    expect(existsSync(t.agentConfig)).toBe(true);

    expect((await t.cli(['doctor', '--agent', 'authfake'])).code).toBe(EXIT.OK);
    const run = await t.cli(['run', '--agent', 'authfake', 'hello']);
    expect(run.stdout).toContain('Signed in; hello from auth-fake.');
    expect(run.code).toBe(EXIT.OK);
  });

  it("a terminal method whose CLI is missing (claude-agent-acp's `claude /login`): said plainly with the install command, exit 6, nothing started", async () => {
    const { home, cwd, agentConfig } = authFakeHome('login-claude', ['--claude-method']);
    const env = { TALARIA_HOME: home, NO_COLOR: '1', PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    const r = await runCli(['login', 'authfake', 'claude-login'], { cwd, env });
    expect(r.stderr).toContain('the `claude` CLI is needed and is not installed here');
    expect(r.stderr).toContain('fix: Install it with `npm install -g @anthropic-ai/claude-code`, then sign in again.');
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(existsSync(agentConfig)).toBe(false);
  });

  it('the agent refusing the sign-in: its own words, exit 5, and the agent stays signed out', async () => {
    const t = setup();
    const r = await t.cli(['login', 'authfake', 'expired']);
    expect(r.code).toBe(EXIT.AGENT_ERROR);
    expect(r.stderr).toContain(
      'authfake refused the sign-in with expired: Authentication required: token expired on 2026-01-01',
    );
    expect(existsSync(t.agentConfig)).toBe(false);
  });

  it('a wrong METHOD, an unknown agent, or several methods and no terminal: a usage error (exit 2) naming the choices; nothing signed in', async () => {
    const t = setup();
    const wrong = await t.cli(['login', 'authfake', 'nope']);
    expect(wrong.code).toBe(EXIT.USAGE);
    expect(wrong.stderr).toContain("authfake has no sign-in method 'nope'; it lists:");
    expect(wrong.stderr).toMatch(/token\s+Use the built-in token \(agent\)/);
    expect(wrong.stderr).toMatch(/setup\s+Set up a key \(terminal\)/);

    const several = await t.cli(['login', 'authfake']);
    expect(several.code).toBe(EXIT.USAGE);
    expect(several.stderr).toContain(
      'authfake lists several sign-in methods; name one (talaria login authfake METHOD):',
    );
    expect(several.stderr).toMatch(/meta-setup\s+Set up a key \(terminal-auth\) \(terminal\)/);

    const unknown = await t.cli(['login', 'nosuch']);
    expect(unknown.code).toBe(EXIT.USAGE);
    expect(unknown.stderr).toContain("login: unknown agent 'nosuch'");
    expect(existsSync(t.agentConfig)).toBe(false);
  });
});

// Skipped only on a machine without tmux; in CI (CI set) a missing tmux fails loudly instead.
const tmux = hasTmux() || Boolean(process.env.CI);

describe.runIf(tmux)('talaria login (terminal methods, in a real terminal: tmux)', () => {
  const SLOW = 90_000;
  const pane = (t: ReturnType<typeof setup>, args: string[]) =>
    new TmuxPane([process.execPath, BIN, 'login', ...args], {
      cwd: t.cwd,
      env: { ...t.env, PATH: process.env.PATH ?? '' },
    });

  it('ACP `type: "terminal"`: the agent\'s own command with --setup asks for the key in a pty; then readiness and run work', async () => {
    const t = setup();
    // The refusal first, so there is a gap for login to clear.
    expect((await t.cli(['run', '--agent', 'authfake', 'hello'])).code).toBe(EXIT.NOT_READY);
    const p = pane(t, ['authfake', 'setup']);
    try {
      await p.waitFor((s) => s.includes('Enter your API key:'), SLOW);
      p.type('sk-fake-0123');
      p.keys('Enter');
      const screen = await p.waitFor((s) => s.includes('EXITED='), SLOW);
      expect(screen).toContain('Saved a key of 12 characters.');
      expect(screen).toContain('authfake is signed in and ready.');
      expect(screen).toContain('EXITED=0');
    } finally {
      p.kill();
    }
    expect(JSON.parse(readFileSync(t.agentConfig, 'utf8'))).toEqual({ key: 'sk-fake-0123' });
    expect((await t.cli(['doctor', '--agent', 'authfake'])).code).toBe(EXIT.OK);
    const run = await t.cli(['run', '--agent', 'authfake', 'hello']);
    expect(run.stdout).toContain('Signed in; hello from auth-fake.');
    expect(run.code).toBe(EXIT.OK);
  });

  it('no METHOD on a terminal: the list, a pick by number (the `_meta` terminal-auth command); an empty key fails the sign-in (exit 5)', async () => {
    const t = setup();
    const p = pane(t, ['authfake']);
    try {
      await p.waitFor((s) => s.includes('Which one (number or id, empty to stop)?'), SLOW);
      p.type('4');
      p.keys('Enter');
      await p.waitFor((s) => s.includes('Enter your API key:'), SLOW);
      p.keys('Enter');
      const screen = await p.waitFor((s) => s.includes('EXITED='), SLOW);
      expect(screen).toContain("Running authfake's sign-in (Set up a key (terminal-auth))");
      expect(screen).toContain('No key given; nothing saved.');
      expect(screen).toContain('the sign-in command exited with code 1; authfake is not signed in.');
      expect(screen).toContain(`EXITED=${EXIT.AGENT_ERROR}`);
    } finally {
      p.kill();
    }
    expect(existsSync(t.agentConfig)).toBe(false);
  });
});
