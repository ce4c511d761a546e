/**
 * Tabs and control characters would break the column arithmetic (and an agent's ESC could move
 * the cursor): tabs become two spaces, ESC shows as ␛, the rest is dropped. Kept apart from width.ts:
 * `string-width` and its Unicode tables take ~90 ms to load, which `talaria run` on a warm
 * server does not need (issue 16).
 */
export function sanitize(s: string): string {
  return s.replace(/\t/g, '  ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === '\x1b' ? '␛' : ''));
}
