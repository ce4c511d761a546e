/**
 * The presence dataspace: facts (records) asserted under handles, retracted by their asserter,
 * observed by pattern (field = value, all must hold) with replay for late observers. Observers
 * are indexed by one field of their pattern, so an assert touches only the observers that could
 * match it (naive matching against 100 observers was ~30× slower: captp-notes.md).
 * Owners are connections (or the host): everything an owner asserted goes when it closes.
 */
export type Primitive = string | number | boolean | null;
export type Fact = Readonly<Record<string, unknown>>;
export type Pattern = Readonly<Record<string, Primitive>>;

export interface FactObserver {
  added(handle: string, fact: Fact): void;
  removed(handle: string, fact: Fact): void;
}

interface Assertion {
  handle: string;
  fact: Fact;
  owner: string;
}

interface Obs {
  pattern: Pattern;
  keys: string[];
  cb: FactObserver;
}

const isPrimitive = (v: unknown): v is Primitive =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const keyOf = (field: string, v: Primitive): string => `${field}\u0000${typeof v}\u0000${String(v)}`;

function matches(p: Obs, fact: Fact): boolean {
  for (const k of p.keys) if (fact[k] !== p.pattern[k]) return false;
  return true;
}

export class Dataspace {
  private readonly facts = new Map<string, Assertion>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly index = new Map<string, Set<Obs>>();
  private readonly wildcard = new Set<Obs>();
  private next = 0;

  get size(): number {
    return this.facts.size;
  }

  countOf(owner: string): number {
    return this.byOwner.get(owner)?.size ?? 0;
  }

  assert(owner: string, fact: Fact): string {
    const handle = `f${++this.next}`;
    const a: Assertion = { handle, fact, owner };
    this.facts.set(handle, a);
    let own = this.byOwner.get(owner);
    if (!own) this.byOwner.set(owner, (own = new Set()));
    own.add(handle);
    this.notify(a, 'added');
    return handle;
  }

  /** Only the asserter may retract its fact. */
  retract(owner: string, handle: string): boolean {
    const a = this.facts.get(handle);
    if (!a || a.owner !== owner) return false;
    this.facts.delete(handle);
    this.byOwner.get(owner)?.delete(handle);
    this.notify(a, 'removed');
    return true;
  }

  retractAll(owner: string): number {
    const own = this.byOwner.get(owner);
    if (!own) return 0;
    this.byOwner.delete(owner);
    let n = 0;
    for (const h of own) {
      const a = this.facts.get(h);
      if (!a) continue;
      this.facts.delete(h);
      this.notify(a, 'removed');
      n++;
    }
    return n;
  }

  /** Replays the matching facts, then reports changes until the returned function is called. */
  observe(pattern: Pattern, cb: FactObserver): () => void {
    const keys = Object.keys(pattern);
    const o: Obs = { pattern, keys, cb };
    // Index under the first field (patterns name their most selective field first: `type`, `id`).
    const first = keys[0];
    if (first === undefined) this.wildcard.add(o);
    else {
      const k = keyOf(first, pattern[first]!);
      let set = this.index.get(k);
      if (!set) this.index.set(k, (set = new Set()));
      set.add(o);
    }
    for (const a of this.facts.values()) if (matches(o, a.fact)) cb.added(a.handle, a.fact);
    return () => {
      if (first === undefined) this.wildcard.delete(o);
      else {
        const k = keyOf(first, pattern[first]!);
        const set = this.index.get(k);
        set?.delete(o);
        if (set?.size === 0) this.index.delete(k);
      }
    };
  }

  private notify(a: Assertion, what: 'added' | 'removed'): void {
    for (const o of this.wildcard) o.cb[what](a.handle, a.fact);
    for (const [field, v] of Object.entries(a.fact)) {
      if (!isPrimitive(v)) continue;
      const set = this.index.get(keyOf(field, v));
      if (!set) continue;
      for (const o of set) if (o.keys[0] === field && matches(o, a.fact)) o.cb[what](a.handle, a.fact);
    }
  }
}
