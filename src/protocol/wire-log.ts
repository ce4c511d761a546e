/**
 * The wire-log line format shared by fixtures, the store and replay:
 * `{"t_ms":<number>,"dir":"client->agent"|"agent->client","msg":<frame>}`, one per line.
 */
import { redactFrame } from '../os/redact.js';
import type { Direction, Frame, WireLogLine } from './types.js';

/**
 * One line, no trailing newline, secrets masked (os/redact.ts). Keys in fixed order so logs diff
 * cleanly. A tapped frame's message is written as the bytes that crossed the pipe (`raw`), not
 * serialised again, unless a secret had to be masked in it.
 */
export function formatWireLine(frame: Frame | WireLogLine): string {
  const t = Number.isFinite(frame.t_ms) ? frame.t_ms : 0;
  const raw = 'raw' in frame && typeof frame.raw === 'string' ? frame.raw : undefined;
  return '{"t_ms":' + t + ',"dir":"' + frame.dir + '","msg":' + redactFrame(frame, raw) + '}';
}

export interface WireLogError {
  /** 1-based line number in the text. */
  line: number;
  error: string;
}

/**
 * Parses a wire log. Blank lines are skipped; spacing inside lines does not matter (the
 * fixtures use `{"t_ms": 0, "dir": …}`). A bad line is passed to `onBadLine` and skipped;
 * without `onBadLine` the first bad line throws, naming its line number.
 */
export function parseWireLog(text: string, onBadLine?: (e: WireLogError) => void): WireLogLine[] {
  const out: WireLogLine[] = [];
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNo++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === '') continue;
    const problem = parseLine(raw, out);
    if (problem === undefined) continue;
    const err = { line: lineNo, error: problem };
    if (!onBadLine) throw new Error(`wire log line ${lineNo}: ${problem}`);
    onBadLine(err);
  }
  return out;
}

function parseLine(raw: string, out: WireLogLine[]): string | undefined {
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
  out.push({ t_ms: o.t_ms, dir: o.dir, msg: o.msg as WireLogLine['msg'] });
  return undefined;
}

export function isDirection(v: unknown): v is Direction {
  return v === 'client->agent' || v === 'agent->client';
}
