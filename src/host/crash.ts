/**
 * A slot's crash accounting: a process that crashed (or was stopped for a stall: it loops the
 * same way) is counted and said (agent.crashed); one too many in a row starts a backoff
 * (agent.backoff; backoff.ts) during which the slot does not start the agent again.
 */
import type { ConnectionClosedError } from '../protocol/errors.js';
import type { Generation } from './generation.js';
import type { SlotPart } from './parts.js';

/** What crash accounting reads of the slot. */
type Slot = Pick<SlotPart, 'key' | 'emit' | 'label' | 'crashes'>;

/** What agent.crashed says of the process. */
export type CrashFacts = { pid: number | null; exitCode: number | null; signal: string | null; stderrTail: string };

/** Counts a crash and starts a backoff when it is one too many; `f` null: counted, not said (a stall kill). */
export function recordCrash(
  slot: Slot,
  gen: Generation,
  message: string,
  f: CrashFacts | null,
  sessions: string[],
): void {
  const backoff = slot.crashes.crash(Date.now() - gen.startedAt, message);
  if (f)
    slot.emit('agent.crashed', { key: slot.key, generation: gen.n, ...f, crashes: slot.crashes.crashes, sessions });
  if (backoff) {
    slot.emit('agent.backoff', {
      key: slot.key,
      crashes: slot.crashes.crashes,
      ...backoff,
      message: `${slot.label} crashed ${slot.crashes.crashes} times in a row; waiting ${backoff.delayMs} ms before starting it again.`,
    });
  }
}

/** It never got through initialize: that is a crash too (a config error loops the same way). */
export function crashedBeforeInit(slot: Slot, g: Generation, e: unknown): void {
  const d = ((e as ConnectionClosedError).details ?? {}) as {
    exitCode?: number | null;
    signal?: string | null;
    stderrTail?: string;
  };
  recordCrash(
    slot,
    g,
    (e as Error).message,
    { pid: null, exitCode: d.exitCode ?? null, signal: d.signal ?? null, stderrTail: d.stderrTail ?? '' },
    [],
  );
  slot.emit('agent.exited', {
    key: slot.key,
    generation: g.n,
    pid: null,
    reason: 'crashed',
    exitCode: d.exitCode ?? null,
    signal: d.signal ?? null,
  });
}
