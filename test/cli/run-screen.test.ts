import { describe, it, expect, vi } from 'vitest';
import { BIN, TmuxPane, demoEnv, hasTmux, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 120_000) });

/**
 * What a person sees when `talaria run` writes to stderr while the answer's line is still open on
 * the same terminal: the stderr line starts on a line of its own, whoever writes it (the printer's
 * tool lines, the run's notes and warnings, Ctrl-C's notice).
 */
const run = (args: string[], cwd: string, env: Record<string, string>) =>
  new TmuxPane([process.execPath, BIN, 'run', ...args], {
    cwd,
    env: { ...env, PATH: process.env.PATH ?? '' },
    width: 160,
  });

/** Lines of the screen holding both texts (none, when nothing was glued). */
const glued = (screen: string, a: string, b: string) =>
  screen.split('\n').filter((l) => l.includes(a) && l.includes(b));

// Skipped only on a machine without tmux; in CI (CI set) a missing tmux fails loudly instead.
describe.runIf(hasTmux() || Boolean(process.env.CI))(
  'talaria run on a terminal: stderr lines never land on the open answer line (tmux)',
  () => {
    it("Ctrl-C's notice mid-answer starts a line", async () => {
      const cwd = tempDir('screen-cancel');
      const env = demoEnv(tempDir('screen-home'), {
        TALARIA_DEMO_SLOW_CHUNKS: '100000',
        TALARIA_DEMO_SLOW_DELAY_MS: '5',
        TALARIA_NO_SERVER: '1',
      });
      const pane = run(['--agent', 'demo', 'slow'], cwd, env);
      try {
        await pane.waitFor((s) => s.includes('Chunk 3 of'));
        pane.keys('C-c');
        const screen = await pane.waitFor((s) => s.includes('EXITED='));
        expect(screen).toContain('EXITED=130');
        expect(screen).toContain('Cancelling the turn');
        expect(glued(screen, 'Chunk', 'Cancelling')).toEqual([]);
        expect(screen).toMatch(/^Cancelling the turn/m);
      } finally {
        pane.kill();
      }
    });
  },
);
