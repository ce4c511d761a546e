/**
 * End-to-end wire assertion: every recorded frame (both directions) must match the official ACP
 * JSON schema. Fails with one readable line per violation.
 */
import { expect } from 'vitest';
import {
  createWireChecker,
  formatViolation,
  type UnknownMethod,
  type Violation,
  type WireCheckOptions,
  type WireCheckStats,
} from '../../src/protocol/wire-check.js';
import type { Frame } from '../../src/protocol/types.js';

export interface WireReport {
  /** Violations a test expected (matched by `except`); the others failed the assertion. */
  excepted: Violation[];
  unknownMethods: readonly UnknownMethod[];
  stats: WireCheckStats;
}

export interface ExpectValidWireOptions extends WireCheckOptions {
  /** Violations a test provokes on purpose (e.g. an unknown update kind). */
  except?: (v: Violation) => boolean;
}

export function expectValidWire(
  frames: Iterable<Pick<Frame, 'dir' | 'msg'>>,
  opts: ExpectValidWireOptions = {},
): WireReport {
  const { except, ...checkOpts } = opts;
  const checker = createWireChecker(checkOpts);
  const all = checker.checkAll(frames);
  const excepted = except ? all.filter(except) : [];
  const failed = all.filter((v) => !excepted.includes(v));
  expect(failed.map(formatViolation), 'frames that do not match the ACP schema').toEqual([]);
  return { excepted, unknownMethods: checker.unknownMethods, stats: checker.stats };
}
