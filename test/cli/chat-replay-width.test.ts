import { describe, it, expect, vi } from 'vitest';
import { BIN, TmuxPane, demoEnv, hasTmux, runCli, startCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

const tmux = hasTmux() || Boolean(process.env.CI);

/**
 * Issue 36 item 20: `talaria chat --session ID` shows a stored, cancelled long answer whole at any
 * width. The history's last answer is not streaming: it was kept live (only its last rows shown)
 * because no turn end followed it, so at 120 columns it began at chunk 15.
 */
describe.runIf(tmux)('talaria chat --session: a long cancelled answer (tmux)', () => {
  it('shows the whole answer at 120 columns', async () => {
    const cwd = tempDir('chat-replay');
    const env = demoEnv(tempDir('chat-replay-home'), {
      TALARIA_DEMO_SLOW_CHUNKS: '60',
      TALARIA_DEMO_SLOW_DELAY_MS: '20',
    });
    // A slow answer cancelled after 34 chunks (Ctrl-C on `talaria run`).
    const run = startCli(['run', 'slow'], { cwd, env });
    await run.until((out) => out.includes('Chunk 34 of 60'));
    run.child.kill('SIGINT');
    await run.done;
    const id = (
      JSON.parse((await runCli(['sessions', 'list', '--json'], { cwd, env })).stdout) as { sessions: { id: string }[] }
    ).sessions[0]!.id;

    const pane = new TmuxPane([process.execPath, BIN, 'chat', '--session', id], {
      cwd,
      env: { ...env, PATH: process.env.PATH ?? '' },
      width: 120,
      height: 45,
    });
    try {
      const screen = await pane.waitFor((s) => s.includes('● ready') && /^> /m.test(s), 60_000);
      expect(screen).toContain('› slow');
      const text = screen.replace(/\s+/g, ' ');
      for (let i = 1; i <= 34; i++) expect(text, `chunk ${i}`).toContain(`Chunk ${i} of 60 from the slow demo.`);
      expect(text.indexOf('Chunk 1 of 60')).toBeLessThan(text.indexOf('Chunk 34 of 60'));
    } finally {
      pane.kill();
    }
  });
});
