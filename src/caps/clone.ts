/**
 * Data crossing CapTP must be hardened, and harden freezes deeply: never harden the harness's own
 * objects (thread entries, events) — copy them as plain JSON data first.
 */
import './lockdown.js';
import harden from '@endo/harden';

export function passable<T>(v: T): T {
  if (v === undefined) return v;
  return harden(JSON.parse(JSON.stringify(v)) as T);
}
