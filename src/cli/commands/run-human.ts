/**
 * Human output of `talaria run`: the agent's text streams to stdout (so `> file` captures the
 * answer); tool calls, permission decisions and notices are one line each on stderr. When both
 * are the same terminal, a stderr line that comes while the answer's line is still open starts on
 * a line of its own: the newline that ends the visible line goes to stderr, so the answer as
 * stdout carries it (`> file`, a pipe) is unchanged. Other stderr writers of the run call
 * `breakLine()` first for the same reason.
 */
import type { SessionEvent } from '../../session/events.js';
import type { Entry } from '../../thread/types.js';
import type { CliIo } from '../io.js';
import { cardHeader, isSettled } from '../render/cards.js';
import type { Style } from '../render/style.js';
import { sanitize } from '../render/sanitize.js';
import { unprinted } from '../render/delta.js';

export class HumanRunOutput {
  private readonly printed = new Map<string, number>();
  private readonly settled = new Set<string>();
  private lastText: string | undefined;
  /** The last two characters written to stdout (for paragraph spacing). */
  private tail = '';
  private wroteText = false;
  /** The last thing written to either stream was answer text without its newline yet. */
  private screenOpen = false;
  /** Events before begin() are the session's state (a reopened session's history): not printed. */
  private live = false;

  constructor(
    private readonly io: CliIo,
    private readonly errStyle: Style,
  ) {}

  /** From now on the run's own turn: print what comes. */
  begin(): void {
    this.live = true;
  }

  handle(ev: SessionEvent): void {
    if (!this.live) return;
    if (ev.type === 'entry.added' || ev.type === 'entry.updated')
      return this.entry(ev.entry as Entry, ev.type === 'entry.updated' ? ev.appended : undefined);
    if (ev.type === 'permission.decided' && ev.decidedBy !== 'user') {
      this.err(
        this.errStyle.dim(
          `  ↳ permission ${(ev.outcome as { outcome?: string })?.outcome === 'selected' ? 'answered' : 'cancelled'} (${ev.decidedBy}): ${ev.reason}`,
        ),
      );
    }
  }

  private entry(e: Entry, appended?: string): void {
    if (e.kind === 'assistant_message') {
      const done = this.printed.get(e.id) ?? 0;
      if (e.text.length <= done) return;
      let delta = sanitize(unprinted(e.text, done, appended));
      this.printed.set(e.id, e.text.length);
      if (this.lastText !== e.id) {
        // A new message: start on a fresh paragraph, without the agent's leading blank lines.
        delta = delta.replace(/^(?:[ \t]*\n)+/, '');
        if (this.wroteText)
          delta = (this.tail.endsWith('\n\n') ? '' : this.tail.endsWith('\n') ? '\n' : '\n\n') + delta;
        this.lastText = e.id;
      }
      if (delta === '') return;
      this.io.stdout.write(delta);
      this.wroteText = true;
      this.tail = (this.tail + delta).slice(-2);
      this.screenOpen = !delta.endsWith('\n');
    } else if (e.kind === 'tool_call' && isSettled(e.status) && !this.settled.has(e.id)) {
      this.settled.add(e.id);
      this.err(cardHeader(e, this.errStyle));
    } else if (e.kind === 'notice') {
      this.err(
        e.level === 'error' ? this.errStyle.red(`error: ${e.text}`) : this.errStyle.yellow(`${e.level}: ${e.text}`),
      );
    }
  }

  private err(line: string): void {
    this.breakLine();
    this.io.stderr.write(`${line}\n`);
  }

  /**
   * Call before anything else goes to stderr during the run (notes, warnings, logs, a question):
   * on one terminal, it ends the answer's open line there, so that line starts on its own.
   */
  breakLine(): void {
    if (this.screenOpen && this.bothTerminals()) this.io.stderr.write('\n');
    this.screenOpen = false;
  }

  /**
   * Ends the streamed text with a newline so the shell prompt starts on its own line, unless a
   * stderr line already ended it on this terminal (a blank line otherwise; a terminal's stdout
   * is not kept, so nothing misses the newline).
   */
  finish(): void {
    const brokenOnScreen = !this.screenOpen && this.bothTerminals();
    if (this.wroteText && !this.tail.endsWith('\n') && !brokenOnScreen) this.io.stdout.write('\n');
    this.tail = '\n';
    this.screenOpen = false;
  }

  private bothTerminals(): boolean {
    return this.io.stdout.isTTY === true && this.io.stderr.isTTY === true;
  }
}
