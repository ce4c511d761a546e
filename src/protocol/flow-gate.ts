/**
 * A hold on reading agents' output, shared by every transport that is given it: while held, each
 * stops reading at its next chunk, so the pipe fills and the agent blocks on its own write. For a
 * consumer that cannot keep up (`talaria acp` when the editor stops reading its stdout): without
 * it, what the agent says piles up in memory without bound.
 */
export class FlowGate {
  private holds = 0;
  private readonly waiters = new Set<() => void>();

  get held(): boolean {
    return this.holds > 0;
  }

  hold(): void {
    this.holds++;
  }

  /** One release per hold; the last one wakes every reader that stopped. */
  release(): void {
    if (this.holds === 0) return;
    if (--this.holds > 0) return;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  /** Calls `cb` once the gate opens; returns a function that forgets it (a closed transport). */
  whenOpen(cb: () => void): () => void {
    this.waiters.add(cb);
    return () => void this.waiters.delete(cb);
  }
}
