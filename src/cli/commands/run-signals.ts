/**
 * What Ctrl-C, SIGTERM and SIGHUP do to a `talaria run`, on either road: the first Ctrl-C
 * cancels the turn, the second quits at once; SIGTERM / SIGHUP (a supervisor, `timeout`, a closed
 * terminal) cancel the turn and the result is printed like after Ctrl-C, and a turn that ignores
 * the cancel is given up after a grace. Light: the warm path loads it.
 */
import type { CliContext } from './common.js';

/** How long a turn gets to answer the cancel after SIGTERM/SIGHUP before the run gives up on it. */
const TERM_GRACE_MS = 5_000;

export class RunSignals {
  interrupts = 0;
  terminated = false;
  /** Resolves when the run must stop without waiting for its turn (a second signal, or the grace is over). */
  readonly forced: Promise<'forced'>;
  private forceQuit!: () => void;
  private cancel: (() => void) | undefined;
  private termTimer: NodeJS.Timeout | undefined;
  private readonly offs: (() => void)[];

  /**
   * `early`: what a signal does before the turn can be cancelled (the local run aborts its
   * setup); without it, a signal then is remembered and acted on at `armed` (the server run: the
   * prompt may already be queued there).
   */
  constructor(
    ctx: Pick<CliContext, 'onInterrupt' | 'onTerminate'>,
    private readonly warn: (text: string) => void,
    private readonly early?: () => void,
  ) {
    this.forced = new Promise<'forced'>((r) => (this.forceQuit = () => r('forced')));
    this.offs = [ctx.onInterrupt(this.interrupt), ctx.onTerminate(this.terminate)];
  }

  readonly interrupt = (): void => {
    this.interrupts++;
    if (!this.cancel && this.early) return this.early();
    if (this.interrupts === 1) {
      this.warn('Cancelling the turn… (Ctrl-C again to quit at once)');
      this.cancel?.();
    } else this.forceQuit();
  };

  private readonly terminate = (signal: NodeJS.Signals): void => {
    if (!this.cancel && this.early) return this.early();
    if (this.terminated) return this.forceQuit();
    this.terminated = true;
    this.warn(`talaria run: ${signal}: cancelling the turn`);
    if (this.cancel) this.cancelWithGrace();
  };

  /** There is a turn to cancel now: from here on signals cancel it (and one that came already does). */
  armed(cancel: () => void): void {
    this.cancel = cancel;
    if (this.early) return;
    if (this.terminated) this.cancelWithGrace();
    else if (this.interrupts > 0) cancel();
  }

  private cancelWithGrace(): void {
    this.cancel?.();
    this.termTimer = setTimeout(this.forceQuit, TERM_GRACE_MS);
    this.termTimer.unref();
  }

  /** The run is over: signals are the process's own again. */
  off(): void {
    for (const off of this.offs.splice(0)) off();
    if (this.termTimer) clearTimeout(this.termTimer);
  }
}
