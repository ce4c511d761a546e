/**
 * Writes renderer output to the terminal. On a TTY the live region (and readline's input line
 * below it) is erased and redrawn in place; committed lines are printed above it once. Without
 * a TTY only committed lines are written.
 */
import type { Interface } from 'node:readline';
import type { OutStream } from '../io.js';
import { truncate, visibleWidth, wrap } from '../render/width.js';

export class Screen {
  private liveRows = 0;
  /** Rows of input readline echoed after Enter (they sit between the live region and the cursor). */
  private echoRows = 0;

  constructor(
    private readonly out: OutStream,
    private readonly tty: boolean,
    private readonly rl?: Interface,
  ) {}

  private get columns(): number {
    return Math.max(20, this.out.columns ?? 80);
  }

  /** After Enter: readline left `prompt + line` on screen; the next render erases it. */
  inputEntered(prompt: string, line: string): void {
    if (!this.tty) return;
    this.echoRows += Math.max(1, Math.ceil(visibleWidth(prompt + line) / this.columns));
  }

  render(commit: string[], live: string[], prompt = true): void {
    if (!this.tty) {
      if (commit.length > 0) this.out.write(commit.map((l) => `${l}\n`).join(''));
      return;
    }
    const inputRows = this.rl ? this.rl.getCursorPos().rows : 0;
    const up = this.liveRows + this.echoRows + inputRows;
    let s = '\r' + (up > 0 ? `\x1b[${up}A` : '') + '\x1b[J';
    // Long lines break at word boundaries, not wherever the terminal cuts them.
    for (const l of commit) for (const row of wrap(l, this.columns - 1)) s += `${row}\n`;
    // One row per live line, so the next erase knows exactly how far to go up.
    for (const l of live) s += `${truncate(l, this.columns - 1)}\n`;
    this.liveRows = live.length;
    this.echoRows = 0;
    this.out.write(s);
    if (this.rl && prompt) {
      // We moved the cursor ourselves: readline must not move up again from its old row.
      (this.rl as unknown as { prevRows?: number }).prevRows = 0;
      this.rl.prompt(true);
    }
  }

  /** Leaves the terminal clean: commits printed, live region and prompt erased. */
  close(commit: string[]): void {
    this.render(commit, [], false);
  }
}
