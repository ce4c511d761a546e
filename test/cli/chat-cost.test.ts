import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, TmuxPane, hasTmux, tempDir } from './helpers.js';

/**
 * Issue 38 item 1 in the terminal: `talaria chat` with Hermes shows the session's cost in its status
 * line after each turn, as Hermes records it in state.db (the emulator, priced at $3/$15 per million
 * tokens); without a price it says "no price", never $0.
 */
const HERMES_BIN = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
const tmux = hasTmux() || Boolean(process.env.CI);

function place(price?: string) {
  const cwd = tempDir('chat-cost');
  const hermesHome = tempDir('chat-cost-hermes');
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  const home = join(tempDir('chat-cost-home'), 'talaria');
  mkdirSync(home, { recursive: true });
  if (price)
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ agents: { hermes: { env: { HERMES_EMU_PRICE: price } } } }),
    );
  const env = {
    TALARIA_HOME: home,
    HERMES_HOME: hermesHome,
    HOME: tempDir('chat-cost-user'),
    NO_COLOR: '1',
    PATH: [HERMES_BIN, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  };
  return { cwd, env };
}

describe.runIf(tmux)('talaria chat: the cost in the status line (tmux)', () => {
  it("Hermes priced: ~$ after the first turn, growing with the second; unpriced: 'no price'", async () => {
    const p = place('3,15');
    const pane = new TmuxPane([process.execPath, BIN, 'chat', '--agent', 'hermes'], p);
    try {
      await pane.waitFor((s) => s.includes('● ready') && /^> /m.test(s));
      pane.type('hello');
      pane.keys('Enter');
      // One model call: (1200 × $3 + 34 × $15) / 1M.
      let screen = await pane.waitFor((s) => s.includes('cost ~$0.0041'));
      expect(screen).toMatch(/● ready .*· cost ~\$0\.0041/);
      pane.type('hello again');
      pane.keys('Enter');
      screen = await pane.waitFor((s) => s.includes('cost ~$0.0082'));
      expect(screen).not.toContain('cost ~$0.0041');
    } finally {
      pane.kill();
    }
    const q = place();
    const plain = new TmuxPane([process.execPath, BIN, 'chat', '--agent', 'hermes'], q);
    try {
      await plain.waitFor((s) => s.includes('● ready') && /^> /m.test(s));
      plain.type('hello');
      plain.keys('Enter');
      const screen = await plain.waitFor((s) => s.includes('cost no price'));
      expect(screen).not.toMatch(/\$0(\.0+)?\b/);
    } finally {
      plain.kill();
    }
  });
});
