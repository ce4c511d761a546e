/**
 * Crash-loop policy: the first `freeRestarts` consecutive crashes respawn at once (on next use);
 * after that each one doubles a wait (from baseMs to maxMs) during which no process is started
 * and every use fails fast with the reason. A process that lived `stableMs`, or a turn that
 * completed, ends the streak.
 */
export interface BackoffPolicy {
  freeRestarts: number;
  baseMs: number;
  maxMs: number;
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { freeRestarts: 2, baseMs: 1_000, maxMs: 60_000, stableMs: 60_000 };

export class CrashTracker {
  crashes = 0;
  private until = 0;
  lastError = '';

  constructor(
    readonly policy: BackoffPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash after `uptimeMs`; returns the wait when this crash starts or extends a backoff. */
  crash(uptimeMs: number, error: string): { delayMs: number; retryAt: number } | undefined {
    this.crashes = uptimeMs >= this.policy.stableMs ? 1 : this.crashes + 1;
    this.lastError = error;
    const over = this.crashes - this.policy.freeRestarts;
    if (over <= 0) return undefined;
    const delayMs = Math.min(this.policy.maxMs, this.policy.baseMs * 2 ** (over - 1));
    this.until = this.now() + delayMs;
    return { delayMs, retryAt: this.until };
  }

  healthy(): void {
    this.crashes = 0;
    this.until = 0;
  }

  /** The time until which no process may start, or undefined. */
  blockedUntil(): number | undefined {
    return this.until > this.now() ? this.until : undefined;
  }
}
