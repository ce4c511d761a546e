/**
 * Sign-in from `talaria chat` on a real terminal (tmux), against the fake agent that wants one
 * (test/fakes/bin/auth-agent.ts over real pipes): the agent's auth_required at session start, or
 * at a prompt, becomes the numbered choice of its methods; the terminal method runs its script in
 * a pty attached to the chat's terminal; then the session opens, or the refused prompt is sent again.
 */
import { describe, it, expect, vi } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BIN, TmuxPane, authFakeHome, hasTmux, runCli } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 120_000) });

const SLOW = 90_000;
const CHOICE = 'Sign in with (number or id, empty to stop)?';

function setup() {
  const { home, cwd, agentConfig } = authFakeHome('chat-login');
  const pane = () =>
    new TmuxPane([process.execPath, BIN, 'chat', '--agent', 'authfake'], {
      cwd,
      env: { TALARIA_HOME: home, NO_COLOR: '1', PATH: process.env.PATH ?? '' },
    });
  const cli = (args: string[], input?: string) =>
    runCli(args, { cwd, env: { TALARIA_HOME: home, NO_COLOR: '1' }, ...(input !== undefined ? { input } : {}) });
  return { agentConfig, pane, cli };
}

/** Picks the `setup` method (3rd in the list) and types the key into its script. */
async function signInWithSetup(p: TmuxPane, key: string, after: string): Promise<string> {
  p.type('3');
  p.keys('Enter');
  await p.waitFor((s) => s.includes('Enter your API key:'), SLOW);
  p.type(key);
  p.keys('Enter');
  return p.waitFor((s) => s.includes(after), SLOW);
}

describe('talaria chat without a terminal: no choice, the clear error and its fix', () => {
  it('auth_required at session start exits NOT_READY with the login line; /login names the command to run', async () => {
    const t = setup();
    const r = await t.cli(['chat', '--agent', 'authfake'], 'hello\n/quit\n');
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stderr).toContain('Authentication required: no key configured');
    expect(r.stderr).toContain('Sign in with: talaria login authfake');
    expect(r.stdout).not.toContain('offers these sign-in methods');

    writeFileSync(t.agentConfig, JSON.stringify({ key: 'k' }) + '\n');
    const piped = await t.cli(['chat', '--agent', 'authfake'], '/login setup\n/quit\n');
    expect(piped.stdout).toContain('Signing in needs a terminal: talaria login authfake setup');
    expect(piped.code).toBe(EXIT.OK);
  });
});

// Skipped only on a machine without tmux; in CI (CI set) a missing tmux fails loudly instead.
const tmux = hasTmux() || Boolean(process.env.CI);

describe.runIf(tmux)('talaria chat signs in when the agent asks (tmux)', () => {
  it('auth_required at session start: the choice instead of the exit; the terminal method in a pty; the session opens and a prompt answers', async () => {
    const t = setup();
    const p = t.pane();
    try {
      const choice = await p.waitFor((s) => s.includes(CHOICE), SLOW);
      expect(choice).toContain(
        'talaria chat: could not open a session: authfake needs credentials: Authentication required: no key configured',
      );
      expect(choice).toContain('authfake offers these sign-in methods:');
      expect(choice).toMatch(/1\. token\s+Use the built-in token \(agent\)/);
      expect(choice).toMatch(/3\. setup\s+Set up a key \(terminal\)/);
      expect(choice).toMatch(/4\. meta-setup\s+Set up a key \(terminal-auth\) \(terminal\)/);
      expect(choice).not.toContain('EXITED=');

      const after = await signInWithSetup(p, 'sk-chat-0123', 'Connected to auth-fake');
      expect(after).toContain("Running authfake's sign-in (Set up a key)");
      expect(after).toContain('Saved a key of 12 characters.');
      expect(after).toContain('authfake is signed in and ready.');
      expect(JSON.parse(readFileSync(t.agentConfig, 'utf8'))).toEqual({ key: 'sk-chat-0123' });

      p.type('hello');
      p.keys('Enter');
      await p.waitFor((s) => s.includes('Signed in; hello from auth-fake.'), SLOW);
      p.type('/quit');
      p.keys('Enter');
      expect(await p.waitFor((s) => s.includes('EXITED='), SLOW)).toContain('EXITED=0');
    } finally {
      p.kill();
    }
  });

  it('a prompt refused with auth_required: the choice; a refused method shows why and the choice again; after the sign-in the same prompt answers', async () => {
    const t = setup();
    writeFileSync(t.agentConfig, JSON.stringify({ key: 'old' }) + '\n');
    const p = t.pane();
    try {
      await p.waitFor((s) => s.includes('Connected to auth-fake'), SLOW);
      // The key goes away while the chat is open: the next prompt is refused.
      rmSync(t.agentConfig);
      p.type('what is the weather');
      p.keys('Enter');
      const choice = await p.waitFor((s) => s.includes(CHOICE), SLOW);
      expect(choice).toContain('Authentication required: the key was removed');
      expect(choice).toMatch(/3\. setup\s+Set up a key \(terminal\)/);

      // `expired` is refused by the agent: its reason, then the choice again.
      p.type('expired');
      p.keys('Enter');
      const again = await p.waitFor(
        (s) => s.includes('choose again') && s.lastIndexOf(CHOICE) > s.indexOf('choose again'),
        SLOW,
      );
      expect(again).toContain(
        'authfake refused the sign-in with expired: Authentication required: token expired on 2026-01-01',
      );
      expect(existsSync(t.agentConfig)).toBe(false);

      const after = await signInWithSetup(p, 'sk-new-42', 'Signed in; hello from auth-fake.');
      expect(after).toContain('authfake is signed in and ready.');
      // The refused prompt was sent again by itself, with its text.
      expect(after.split('› what is the weather').length - 1).toBe(2);
      expect(JSON.parse(readFileSync(t.agentConfig, 'utf8'))).toEqual({ key: 'sk-new-42' });
      p.type('/quit');
      p.keys('Enter');
      expect(await p.waitFor((s) => s.includes('EXITED='), SLOW)).toContain('EXITED=0');
    } finally {
      p.kill();
    }
  });

  it('a sign-in command that fails: its reason and the choice again; an empty answer stops and the chat exits not ready', async () => {
    const t = setup();
    const p = t.pane();
    try {
      await p.waitFor((s) => s.includes(CHOICE), SLOW);
      // The `_meta` terminal-auth form, given no key: the script saves nothing and exits 1.
      p.type('4');
      p.keys('Enter');
      await p.waitFor((s) => s.includes('Enter your API key:'), SLOW);
      p.keys('Enter');
      const again = await p.waitFor(
        (s) => s.includes('choose again') && s.lastIndexOf(CHOICE) > s.indexOf('choose again'),
        SLOW,
      );
      expect(again).toContain('No key given; nothing saved.');
      expect(again).toContain('the sign-in command exited with code 1; authfake is not signed in.');
      p.keys('Enter');
      const end = await p.waitFor((s) => s.includes('EXITED='), SLOW);
      expect(end).toContain(`EXITED=${EXIT.NOT_READY}`);
      expect(end).not.toContain('Connected to auth-fake');
    } finally {
      p.kill();
    }
    expect(existsSync(t.agentConfig)).toBe(false);
  });
});
