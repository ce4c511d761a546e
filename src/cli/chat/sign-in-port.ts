/**
 * The chat's side of a sign-in (chat/sign-in.ts's ChatSignInUi on the chat's own terminal): its
 * lines become notes, its question takes over the input line until answered, and a terminal
 * method gets the terminal: the chat's input paused and raw mode off while the pty runs, both
 * restored after (the pty's `script` sets its own modes and puts back what it found).
 */
import type { Interface } from 'node:readline';
import type { CliIo } from '../io.js';
import type { ChatRenderer } from '../render/renderer.js';
import type { Screen } from './screen.js';
import type { ChatSignInUi } from './sign-in.js';

export class SignInPort implements ChatSignInUi {
  /** The question shown as the prompt while an answer is awaited. */
  question: string | undefined;
  /** While true the pty owns the terminal: no redraws, no Ctrl-C of ours. */
  handedOver = false;
  private waiting: ((line: string | undefined) => void) | undefined;

  constructor(
    private readonly d: {
      rl: Interface;
      screen: Screen;
      renderer: ChatRenderer;
      stdin: CliIo['stdin'];
      /** Prompt or notes changed: set the prompt again and redraw. */
      changed(): void;
    },
  ) {}

  get asking(): boolean {
    return this.waiting !== undefined;
  }

  /** The next line typed (undefined: Ctrl-C, Ctrl-D) answers the question. */
  answer(line: string | undefined): void {
    const w = this.waiting;
    this.waiting = this.question = undefined;
    this.d.changed();
    w?.(line);
  }

  note(text: string, level?: 'info' | 'warning' | 'error'): void {
    this.d.renderer.note(text, level);
    this.d.changed();
  }

  ask(question: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.question = question;
      this.waiting = resolve;
      this.d.changed();
    });
  }

  handOver(): () => void {
    // Everything said so far goes above the pty's output; our live region and prompt are erased.
    this.d.screen.close(this.d.renderer.takeCommitted());
    this.handedOver = true;
    this.d.rl.pause();
    this.raw(false);
    return () => {
      this.raw(true);
      this.d.rl.resume();
      this.handedOver = false;
      this.d.changed();
    };
  }

  private raw(on: boolean): void {
    const tty = this.d.stdin as { isTTY?: boolean; setRawMode?: (on: boolean) => void };
    if (tty.isTTY) tty.setRawMode?.(on);
  }
}
