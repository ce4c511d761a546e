import { describe, it, expect, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BIN, TmuxPane, allowEditOnPane, demoEnv, fakeCmd, hasTmux, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** A generous bound for each screen of the polish test (a loaded machine starts agents slowly). */
const SLOW = 60_000;

function workspace() {
  const cwd = tempDir('chat');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  return cwd;
}

/**
 * `talaria chat` in a real pseudo-terminal (tmux): typed keys in, the rendered screen out.
 * Each step waits for what the screen must show next (bounded polling, no sleeps).
 */
// Skipped only on a machine without tmux; in CI (CI set) a missing tmux fails loudly instead.
const tmux = hasTmux() || Boolean(process.env.CI);

describe.runIf(tmux)('talaria chat in a terminal (tmux)', () => {
  it('streams a reply, asks and applies a permission, cancels a slow turn with Ctrl-C, quits with Ctrl-C twice', async () => {
    const cwd = workspace();
    const env = demoEnv(tempDir('chat-home'), { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '20' });
    delete (env as Record<string, string | undefined>).NO_COLOR; // the real thing: colours on (capture-pane strips them)
    const pane = new TmuxPane([process.execPath, BIN, 'chat'], { cwd, env: { ...env, PATH: process.env.PATH ?? '' } });
    try {
      // Progress, the demo banner, then the status line under the prompt (the context meter joins it
      // when the agent's usage_update arrives, just after the session/new answer).
      let screen = await pane.waitFor((s) => s.includes('● ready') && /^> /m.test(s) && s.includes('· ctx'));
      expect(screen).toContain('Connected to Talaria demo agent');
      expect(screen).toContain('Using the Talaria demo agent (offline, scripted) — install Hermes or pass --agent-cmd');
      expect(screen).toMatch(/model demo-fast · mode ask · ctx/);

      // A prompt: the user line, dimmed thinking, streamed text, the turn summary.
      pane.type('hello there');
      pane.keys('Enter');
      screen = await pane.waitFor((s) => s.includes('✓ done') && s.slice(s.indexOf('✓ done')).includes('● ready'));
      expect(screen).toContain('› hello there');
      // The live region was redrawn in place: one status line on the whole screen, no stale copies.
      expect(screen.match(/● ready/g)).toHaveLength(1);
      expect(screen).toContain('┊ Thinking about: "hello there"');
      expect(screen).toContain('You said: "hello there".');
      expect(screen).not.toMatch(/^> hello there/m); // readline's echo of the typed line was replaced by the entry

      // A permission: the card with its diff and the question; "y" allows once and the file changes.
      pane.type('edit notes.txt');
      pane.keys('Enter');
      screen = await pane.waitFor((s) => s.includes('Allow Edit notes.txt? [y/a/n]'));
      expect(screen).toContain('? Permission needed: Edit notes.txt');
      expect(screen).toContain('+Edited by the Talaria demo agent.');
      pane.type('y');
      pane.keys('Enter');
      screen = await pane.waitFor((s) => s.includes('Done: notes.txt was edited by the demo agent.'));
      expect(screen).toContain('✓ [edit] Edit notes.txt completed · allowed');
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\nEdited by the Talaria demo agent.\n');

      // A slow turn: text streams, Ctrl-C cancels it, the text stays, the session is ready again.
      pane.type('slow');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('Chunk 3 of 100000'));
      pane.keys('C-c');
      screen = await pane.waitFor((s) => s.includes('⊘ cancelled'));
      expect(screen).toContain('Cancelling the turn… (Ctrl-C again to quit)');
      expect(screen).toContain('Chunk 1 of 100000 from the slow demo.');
      await pane.waitFor((s) => /● ready[^\n]*\n> *$/m.test(s.trimEnd() + '\n'));

      // A slash command, then Ctrl-C twice leaves with exit code 0.
      pane.type('/model');
      pane.keys('Enter');
      await pane.waitFor((s) => /\* demo-fast — Demo fast/.test(s));
      pane.keys('C-c');
      await pane.waitFor((s) => s.includes('(Ctrl-C again or /quit to leave)'));
      pane.keys('C-c');
      screen = await pane.waitFor((s) => s.includes('EXITED='));
      expect(screen).toContain('EXITED=0');
    } finally {
      pane.kill();
    }
  });

  it('prompts typed while a turn runs are queued and run after it; /quit leaves', async () => {
    const cwd = workspace();
    const env = demoEnv(tempDir('chat-home'), { TALARIA_DEMO_SLOW_CHUNKS: '60', TALARIA_DEMO_SLOW_DELAY_MS: '30' });
    const pane = new TmuxPane([process.execPath, BIN, 'chat'], { cwd, env: { ...env, PATH: process.env.PATH ?? '' } });
    try {
      await pane.waitFor((s) => s.includes('● ready'));
      pane.type('slow');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('Chunk 1 of 60'));
      pane.type('read notes.txt');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('1 queued'));
      const screen = await pane.waitFor((s) => s.includes('I read notes.txt: 1 line.'));
      // The queued prompt ran after the slow turn finished.
      expect(screen.indexOf('Done: nothing was cancelled this time.')).toBeLessThan(screen.indexOf('› read notes.txt'));
      pane.type('/quit');
      pane.keys('Enter');
      expect(await pane.waitFor((s) => s.includes('EXITED='))).toContain('EXITED=0');
    } finally {
      pane.kill();
    }
  });
});

describe.runIf(tmux)('talaria chat /steer (tmux, demo agent: no steering of its own)', () => {
  it('/steer during a slow turn cancels it and resends with the correction; the thread says so; the agent got the ask, the partial answer and the correction', async () => {
    const cwd = workspace();
    const home = tempDir('chat-home');
    const env = demoEnv(home, { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '20' });
    const pane = new TmuxPane([process.execPath, BIN, 'chat'], { cwd, env: { ...env, PATH: process.env.PATH ?? '' } });
    try {
      await pane.waitFor((s) => s.includes('● ready'), SLOW);
      pane.type('slow');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('Chunk 2 of 100000'), SLOW);
      pane.type('/steer read notes.txt');
      pane.keys('Enter');
      const screen = await pane.waitFor(
        (s) =>
          s.includes('Interrupted the running turn and resent it with your correction: read notes.txt') &&
          /✓ done[\s\S]*✓ done|cancelled[\s\S]*✓ done/.test(s),
        SLOW,
      );
      expect(screen).not.toContain('Chunk 100000 of');
      pane.type('/quit');
      pane.keys('Enter');
      expect(await pane.waitFor((s) => s.includes('EXITED='), SLOW)).toContain('EXITED=0');
    } finally {
      pane.kill();
    }
    // What the agent received (Talaria's store of the session's wire): the ask, the partial answer, then the correction.
    const out = await runCli(['sessions', 'list', '--json'], { cwd, env: demoEnv(home) });
    const id = (JSON.parse(out.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    const fixture = await runCli(['sessions', 'export', id, '--format', 'fixture'], { cwd, env: demoEnv(home) });
    const prompts = fixture.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { dir: string; msg: { method?: string; params?: { prompt?: { text?: string }[] } } })
      .filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt')
      .map((f) => f.msg.params!.prompt![0]!.text!);
    expect(prompts[0]).toBe('slow');
    expect(prompts[1]).toMatch(
      /^\[Talaria\] The user interrupted your answer to this message:\n<message>\nslow\n<\/message>\nWhat you had answered so far:\n<partial_answer>\nChunk 1 of 100000/,
    );
    expect(prompts[1]!.endsWith('\n\nread notes.txt')).toBe(true);
  });
});

describe.runIf(tmux)('talaria chat polish (tmux)', () => {
  it("Markdown, word wrap, one-key answers, the diff once, aligned /help, the tour's leftover, Ctrl-C after a quick cancel quits, a resume hint", async () => {
    const cwd = workspace();
    const env = demoEnv(tempDir('chat-home'), { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '20' });
    const pane = new TmuxPane([process.execPath, BIN, 'chat'], {
      cwd,
      env: { ...env, PATH: process.env.PATH ?? '' },
      width: 72,
      height: 60,
    });
    try {
      await pane.waitFor((s) => s.includes('● ready'), SLOW);
      // Markdown: the demo's "- `tour`: …" list is rendered as a list, not shown raw.
      pane.type('hello');
      pane.keys('Enter');
      let screen = await pane.waitFor((s) => s.includes('✓ done'), SLOW);
      expect(screen).toMatch(/^ {2}\* .*tour.*: the showcase/m);
      expect(screen).not.toMatch(/^- `tour`/m);
      // Long lines break between words: no row ends inside a word that goes on in the next row.
      const rows = screen.split('\n');
      const i = rows.findIndex((r) => r.startsWith('Hi! I am the Talaria demo agent'));
      expect(rows[i]!.length).toBeLessThanOrEqual(72);
      expect(rows[i]!.endsWith(' ') || /\W$/.test(rows[i]!) || /^\S/.test(rows[i + 1]!)).toBe(true);
      expect(`${rows[i]} ${rows[i + 1]}`).toContain('offline and scripted, with no AI model behind me');

      // One key answers a permission question (no Enter); the diff is shown with the question only.
      pane.type('edit notes.txt');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('[y/a/n]'), SLOW);
      pane.type('y');
      screen = await pane.waitFor((s) => s.includes('Done: notes.txt was edited by the demo agent.'), SLOW);
      expect(screen.match(/\+Edited by the Talaria demo agent\./g)).toHaveLength(1);
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\nEdited by the Talaria demo agent.\n');

      // /help: the descriptions of ours and the agent's commands start in one column.
      pane.type('/help');
      pane.keys('Enter');
      screen = await pane.waitFor((s) => s.includes('Stream slowly so you can cancel'), SLOW);
      const help = screen
        .slice(screen.lastIndexOf('Commands:'))
        .split('\n')
        .filter((l) => /^ {2}\/\w/.test(l));
      expect(help.length).toBeGreaterThan(10);
      expect(
        new Set(help.map((l) => l.search(/(?<=\S)\s{2,}\S/) + l.slice(l.search(/(?<=\S)\s{2,}\S/)).search(/\S/))).size,
      ).toBe(1);

      // The tour says which file it left in the folder.
      pane.type('tour');
      pane.keys('Enter');
      await pane.waitFor(
        (s) => (s.match(/\[y\/a\/n\]/g) ?? []).length >= 1 && s.includes('Edit talaria-demo.txt?'),
        SLOW,
      );
      pane.type('y');
      await pane.waitFor((s) => s.includes('Run echo'), SLOW);
      await pane.waitFor((s) => /Allow Run echo .*\[y\/a\/n\]/.test(s), SLOW);
      pane.type('y');
      screen = await pane.waitFor((s) => s.includes('That was the tour.'), SLOW);
      expect(screen.replace(/\n/g, ' ')).toContain(`I left ${join(cwd, 'talaria-demo.txt')} behind`);

      // A quick cancel, then Ctrl-C once more quits (as the cancel note says), with how to resume.
      pane.type('slow');
      pane.keys('Enter');
      await pane.waitFor((s) => s.includes('Chunk 3 of 100000'), SLOW);
      pane.keys('C-c');
      await pane.waitFor((s) => s.includes('⊘ cancelled ·'), SLOW);
      pane.keys('C-c');
      screen = await pane.waitFor((s) => s.includes('EXITED='), SLOW);
      expect(screen).toContain('EXITED=0');
      expect(screen).toMatch(/Resume this session with: talaria chat --session [0-9a-f-]{36}/);
    } finally {
      pane.kill();
    }
  });
});

describe.runIf(tmux)('talaria run on a terminal (tmux)', () => {
  it('--approve ask asks on the terminal: y allows the edit', async () => {
    const cwd = workspace();
    const pane = new TmuxPane([process.execPath, BIN, 'run', 'edit notes.txt'], {
      cwd,
      env: { ...demoEnv(tempDir('run-home')), PATH: process.env.PATH ?? '' },
    });
    try {
      const screen = await allowEditOnPane(pane);
      expect(screen).toContain('Done: notes.txt was edited by the demo agent.');
      expect(screen).toContain('EXITED=0');
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\nEdited by the Talaria demo agent.\n');
    } finally {
      pane.kill();
    }
  });

  it('Ctrl-C at the permission question cancels the turn (exit 130), the file is untouched', async () => {
    const cwd = workspace();
    const pane = new TmuxPane([process.execPath, BIN, 'run', 'edit notes.txt'], {
      cwd,
      env: { ...demoEnv(tempDir('run-home')), PATH: process.env.PATH ?? '' },
    });
    try {
      await pane.waitFor((s) => s.includes('allow? [y]es once'));
      pane.keys('C-c');
      const screen = await pane.waitFor((s) => s.includes('EXITED='));
      expect(screen).toContain('EXITED=130');
      expect(screen).toContain('talaria run: cancelled');
      expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\n');
    } finally {
      pane.kill();
    }
  });
});

describe('talaria chat without a terminal (piped input)', () => {
  it('--session shows the loaded history; lines are handled in order: prompts, a permission answer, slash commands, /quit', async () => {
    const cwd = workspace();
    const env = demoEnv(tempDir('chat-home'));
    const first = JSON.parse((await runCli(['run', '--json', 'remember me'], { cwd, env })).stdout) as {
      sessionId: string;
    };
    const exported = join(cwd, 'thread.md');
    const lines = [
      'read notes.txt',
      'edit notes.txt',
      'y',
      '/mode',
      '/sessions',
      '/help',
      '/frob',
      `/export ${exported}`,
      '/quit',
      'never sent',
    ];
    const r = await runCli(['chat', '--session', first.sessionId], { cwd, env, input: lines.join('\n') + '\n' });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toContain(`Loading session ${first.sessionId}`);
    expect(r.stdout).not.toContain('\x1b'); // plain output when stdout is not a TTY
    const out = r.stdout;
    const order = [
      '› remember me',
      'I read notes.txt: 1 line.',
      '? Permission needed: Edit notes.txt',
      '✓ [edit] Edit notes.txt completed · allowed',
    ];
    const at = order.map((t) => out.indexOf(t));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(out).toMatch(/\* ask — Ask/);
    expect(out).toMatch(
      new RegExp(`^\\* ${first.sessionId} +demo +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +(Demo: )?remember me$`, 'm'),
    );
    expect(out).toContain('Agent commands (sent to the agent');
    expect(out).toContain('Unknown command /frob');
    expect(out).not.toContain('never sent');
    const md = readFileSync(exported, 'utf8');
    expect(md).toContain('### User\n\nremember me');
    expect(md).toContain('- permission: allowed (`allow`)');
  });

  it('end of input waits for the running turn, then leaves', async () => {
    const cwd = workspace();
    const r = await runCli(['chat'], { cwd, env: demoEnv(tempDir('chat-home')), input: 'plan\n' });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toContain('Step 3: write the reply.');
    expect(r.stdout).toContain('✓ done');
  });

  it('an agent that dies mid-turn: the failure is shown with its stderr, exit 5', async () => {
    const r = await runCli(['chat', '--agent-cmd', fakeCmd('crash-mid-turn')], {
      cwd: tempDir('chat-crash'),
      input: 'hi\n',
    });
    expect(r.code).toBe(EXIT.AGENT_ERROR);
    expect(r.stdout).toContain('working on it...');
    expect(r.stdout).toContain('The agent connection was lost');
    expect(r.stdout).toContain('  | RuntimeError: fake model backend exploded');
  });

  it('an agent that cannot start: not ready (6)', async () => {
    const r = await runCli(['chat', '--agent-cmd', 'talaria-no-such-agent-xyz'], {
      cwd: tempDir('chat-bad'),
      input: '',
    });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stderr).toContain('command not found');
  });
});
