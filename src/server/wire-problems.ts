/**
 * The wire checker's verdict per stored frame, for the inspector: which frames failed the ACP
 * schema and why. A response is judged against the request it answers, so a page is never
 * checked alone: one checker per session reads the log in order, once, and remembers only the
 * bad frames (the inspector polls as the log grows; each poll checks the new frames only).
 */
import { createWireChecker, type WireChecker } from '../protocol/wire-check.js';
import type { Direction } from '../protocol/types.js';
import type { WireRow } from '../store/index.js';

interface Checked {
  checker: WireChecker;
  /** Last seq checked. */
  through: number;
  /** seq → the first problem of that frame. */
  problems: Map<number, string>;
}

/** Sessions whose checker is kept (the inspector looks at a few at a time). */
const KEEP = 16;

export class WireProblems {
  private readonly bySession = new Map<string, Checked>();

  constructor(private readonly read: (sessionId: string, fromSeq: number, limit: number) => Iterable<WireRow>) {}

  /** The problem of each frame up to `throughSeq` that failed the schema (seq → problem). */
  upTo(sessionId: string, throughSeq: number): ReadonlyMap<number, string> {
    let c = this.bySession.get(sessionId);
    if (c) this.bySession.delete(sessionId);
    else c = { checker: createWireChecker(), through: 0, problems: new Map() };
    this.bySession.set(sessionId, c); // most recently used last
    if (this.bySession.size > KEEP) this.bySession.delete(this.bySession.keys().next().value!);
    if (throughSeq > c.through) {
      for (const r of this.read(sessionId, c.through + 1, throughSeq - c.through)) {
        const bad = c.checker.check({ dir: r.dir as Direction, msg: parse(r.msg) as never })[0];
        if (bad) c.problems.set(r.seq, `${bad.path || '(frame)'}: ${bad.message}`);
        c.through = r.seq;
      }
    }
    return c.problems;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
