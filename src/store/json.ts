/** Small JSON and wire-line helpers (the store cannot import protocol/wire-log.ts at run time). */
import type { Direction, RawMessage, WireLogLine } from '../protocol/types.js';

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

export function isDirection(v: unknown): v is Direction {
  return v === 'client->agent' || v === 'agent->client';
}

export interface FixtureProblem {
  /** 1-based line number. */
  line: number;
  error: string;
}

/**
 * Parses fixture NDJSON (spacing inside lines does not matter; blank lines skipped). A bad line
 * goes to `onBadLine`, or throws naming its line number when there is none.
 */
export function parseFixture(text: string, onBadLine?: (p: FixtureProblem) => void): WireLogLine[] {
  const out: WireLogLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const problem = parseOne(raw, out);
    if (problem === undefined) continue;
    if (!onBadLine) throw new Error(`fixture line ${i + 1}: ${problem}`);
    onBadLine({ line: i + 1, error: problem });
  }
  return out;
}

function parseOne(raw: string, out: WireLogLine[]): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  const o = v as Record<string, unknown>;
  if (typeof o.t_ms !== 'number' || !Number.isFinite(o.t_ms)) return 't_ms must be a number';
  if (!isDirection(o.dir)) return 'dir must be "client->agent" or "agent->client"';
  if (typeof o.msg !== 'object' || o.msg === null || Array.isArray(o.msg)) return 'msg must be an object';
  out.push({ t_ms: o.t_ms, dir: o.dir, msg: o.msg as RawMessage });
  return undefined;
}
