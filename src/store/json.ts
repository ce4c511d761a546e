/** Small JSON and wire-line helpers. */

/** JSON text or null for undefined, for nullable TEXT columns. */
export function toJson(v: unknown): string | null {
  return v === undefined ? null : JSON.stringify(v);
}

/** Parses a stored JSON column; a damaged value comes back as undefined rather than throwing. */
export function fromJson<T = unknown>(text: string | null | undefined): T | undefined {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** The fixture line, built from the stored msg text without re-parsing it. Same key order as formatWireLine. */
export function wireLineText(t_ms: number, dir: string, msgText: string): string {
  return '{"t_ms":' + (Number.isFinite(t_ms) ? t_ms : 0) + ',"dir":"' + dir + '","msg":' + msgText + '}';
}

// The fixture format is the protocol layer's: one parser, one formatter.
export {
  parseWireLog as parseFixture,
  isDirection,
  type WireLogError as FixtureProblem,
} from '../protocol/wire-log.js';
