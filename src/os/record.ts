/**
 * JSON read from the wire or from disk is `unknown` until looked at. One guard for "is it a JSON
 * object?" (not null, not an array), in the two ways callers use it:
 * - `isRecord(v)` / `asRecord(v)`: whether it is one (a type guard, or the object or undefined);
 * - `recordOrEmpty(v)`: its fields, none when it is not one (for reading optional nested fields).
 */

/** True when `v` is a JSON object: an object that is neither null nor an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is a JSON object (see isRecord), else undefined. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}

/** `v` when it is a JSON object (see isRecord), else a new empty object. */
export function recordOrEmpty(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}
