import { describe, expect, it } from 'vitest';
import { asRecord, isRecord, recordOrEmpty } from '../../src/os/record.js';

describe('record guard', () => {
  const no: unknown[] = [null, undefined, [], [1], 'x', 1, true];
  it('a JSON object is a record; null, arrays and scalars are not', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    for (const v of no) expect(isRecord(v)).toBe(false);
  });

  it('asRecord gives the object or undefined; recordOrEmpty the object or a new {}', () => {
    const o = { a: 1 };
    expect(asRecord(o)).toBe(o);
    expect(recordOrEmpty(o)).toBe(o);
    for (const v of no) {
      expect(asRecord(v)).toBeUndefined();
      expect(recordOrEmpty(v)).toEqual({});
    }
    expect(recordOrEmpty(null)).not.toBe(recordOrEmpty(null));
  });
});
