/**
 * Caretakers: every object the caps face hands out checks its gate before acting. A gate belongs
 * to a persistent reference (or to nothing: connection-local objects); revoking the reference
 * (or an ancestor) closes every gate made for it at once, so references already handed on stop
 * working mid-stream and their pushes stop. A gate may also have its own expiry and close hooks.
 */
import { CapsError } from './errors.js';
import type { RefStore } from './refs.js';

export class Gate {
  private reason: string | undefined;
  private readonly hooks = new Set<() => void>();
  constructor(
    readonly refId: string | undefined,
    readonly methods: ReadonlySet<string> | undefined,
    private readonly expiresAt: number | undefined,
    private readonly now: () => number,
    /** Re-reads the store: a revocation by another process (`talaria caps revoke`) counts at the next call. */
    private readonly stillValid?: () => boolean,
  ) {}

  get open(): boolean {
    return this.reason === undefined && (this.expiresAt === undefined || this.expiresAt > this.now());
  }

  /** Throws unless the gate is open and (when it lists methods) allows `method`. */
  check(method: string): void {
    if (this.reason !== undefined) throw new CapsError('ref_revoked', `ref_revoked: ${this.reason}`);
    if (this.expiresAt !== undefined && this.expiresAt <= this.now())
      throw new CapsError('ref_expired', 'ref_expired: this reference has expired');
    if (this.stillValid && !this.stillValid()) {
      this.shut('this reference was revoked');
      throw new CapsError('ref_revoked', 'ref_revoked: this reference was revoked');
    }
    if (this.methods && !this.methods.has(method))
      throw new CapsError('method_denied', `method_denied: this reference does not allow ${method}`);
  }

  /** Whether its methods include `method` (no list: everything its object has). Open or not. */
  allows(method: string): boolean {
    return this.methods === undefined || this.methods.has(method);
  }

  shut(reason: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    for (const fn of this.hooks) fn();
    this.hooks.clear();
  }

  onShut(fn: () => void): () => void {
    if (this.reason !== undefined) {
      fn();
      return () => {};
    }
    this.hooks.add(fn);
    return () => this.hooks.delete(fn);
  }
}

/** Live gates by reference id; a revocation in the RefStore shuts them. */
export class Gates {
  private readonly byRef = new Map<string, Set<Gate>>();
  private readonly off: () => void;

  constructor(
    private readonly refs: RefStore,
    private readonly now: () => number = Date.now,
  ) {
    this.off = refs.onRevoke((ids) => {
      for (const id of ids) for (const g of this.byRef.get(id) ?? []) g.shut('this reference was revoked');
    });
  }

  make(refId: string | undefined, methods?: readonly string[], expiresAt?: number): Gate {
    const g = new Gate(
      refId,
      methods ? new Set(methods) : undefined,
      expiresAt,
      this.now,
      refId === undefined ? undefined : () => this.refs.alive(refId),
    );
    if (refId !== undefined) {
      let set = this.byRef.get(refId);
      if (!set) this.byRef.set(refId, (set = new Set()));
      set.add(g);
      g.onShut(() => {
        set.delete(g);
        if (set.size === 0) this.byRef.delete(refId);
      });
    }
    return g;
  }

  /** Gates currently open for a reference (tests, diagnostics). */
  count(refId: string): number {
    return this.byRef.get(refId)?.size ?? 0;
  }

  close(): void {
    this.off();
    for (const set of this.byRef.values()) for (const g of set) g.shut('the host closed');
    this.byRef.clear();
  }
}
