/**
 * The agent's `session/update` line, forwarded as the agent wrote it: only `params.sessionId` is
 * swapped for Talaria's id (and, for a chunk the agent gave none, a `messageId` is put first in
 * `params.update`). Everything else keeps its bytes: whitespace, key order, unicode escapes,
 * unknown fields. Re-serializing every forwarded frame was the proxy's largest single cost after
 * the store (a JSON.stringify per frame); this is a scan that skips string contents natively.
 *
 * The line has already passed JSON.parse, so the scan only has to find where things are, not
 * validate. Whenever the shape is not the plain one (a key written with escapes, a duplicate
 * `params`, `sessionId` or `update`, an update that is not an object) it answers undefined and the
 * caller re-serializes the parsed message instead.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `i` is at an opening quote: the index after the closing one (indexOf runs natively over long text). */
function skipString(s: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = s.indexOf('"', j);
    if (q === -1) return s.length;
    let b = q - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    // An even run of backslashes before the quote escapes only themselves: the string ends here.
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** `i` is at the start of a value: the index after it. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    let j = i;
    for (;;) {
      const d = s.charCodeAt(j);
      if (d === QUOTE) {
        j = skipString(s, j);
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
      if (j >= s.length) return j;
    }
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  for (;;) {
    const d = s.charCodeAt(j);
    if (
      d === COMMA ||
      d === CLOSE_BRACE ||
      d === CLOSE_BRACKET ||
      d === 0x20 ||
      d === 0x0a ||
      d === 0x0d ||
      d === 0x09 ||
      j >= s.length
    )
      return j;
    j++;
  }
}

/**
 * The members of the object opening at `i`: `visit(key, valueStart)` returns where the value ends
 * (or -1 to give up). Returns the index after the object, or -1 when a visit gave up or a key holds
 * an escape (it could spell a key we look for).
 */
function members(s: string, i: number, visit: (key: string, at: number) => number): number {
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return -1;
    const end = skipString(s, i);
    const key = s.slice(i + 1, end - 1);
    if (key.includes('\\')) return -1;
    i = skipWs(s, end);
    i = skipWs(s, i + 1); // past the colon
    const next = visit(key, i);
    if (next < 0) return -1;
    i = skipWs(s, next);
    if (s.charCodeAt(i) !== COMMA) return s.charCodeAt(i) === CLOSE_BRACE ? i + 1 : -1;
    i = skipWs(s, i + 1);
  }
}

export interface UpdateSpans {
  /** The `params.sessionId` string token: [start, end). */
  sidStart: number;
  sidEnd: number;
  /** The `{` that opens `params.update`. */
  updateOpen: number;
}

/** How JSON.stringify (and so most agents) writes the frame up to the session id. */
const PLAIN_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
const PLAIN_MID = ',"update":{';
/**
 * Raw text whose presence after the update sends the line to the full scan, found in one native
 * pass (four `includes` walked the line four times: ~0.3 µs of the ~0.6 µs this check cost).
 */
const AGAIN = /"(?:sessionId|update|params)"|\\u/g;

/**
 * The common case without a scan: the plain head, a session id without escapes, then the update.
 * The keys found can have no duplicates when none of them appears again raw and there is no `\u`
 * escape after (only a `\u` escape could spell one of those keys differently).
 */
function plainSpans(line: string): UpdateSpans | undefined {
  // slice + === compares natively; startsWith with a 66-character prefix cost ~4× as much.
  if (line.slice(0, PLAIN_HEAD.length) !== PLAIN_HEAD) return undefined;
  const sidStart = PLAIN_HEAD.length - 1;
  // The id is short: walk it to its closing quote; a backslash in it sends the line to the scan.
  let close = PLAIN_HEAD.length;
  for (;;) {
    const c = line.charCodeAt(close);
    if (c === QUOTE) break;
    if (c === BACKSLASH || Number.isNaN(c)) return undefined;
    close++;
  }
  if (!line.startsWith(PLAIN_MID, close + 1)) return undefined;
  const updateOpen = close + PLAIN_MID.length;
  AGAIN.lastIndex = updateOpen;
  if (AGAIN.test(line)) return undefined;
  return { sidStart, sidEnd: close + 1, updateOpen };
}

/** Where the session id and the update sit in a `session/update` line, or undefined (see the file's note). */
export function updateSpans(line: string): UpdateSpans | undefined {
  const plain = plainSpans(line);
  if (plain) return plain;
  const top = skipWs(line, 0);
  if (line.charCodeAt(top) !== OPEN_BRACE) return undefined;
  let params = 0;
  let sidStart = -1;
  let sidEnd = -1;
  let updateOpen = -1;
  let sids = 0;
  let updates = 0;
  const inParams = (key: string, at: number): number => {
    if (key === 'sessionId') {
      sids++;
      if (line.charCodeAt(at) !== QUOTE) return -1;
      sidStart = at;
      sidEnd = skipString(line, at);
      return sidEnd;
    }
    if (key === 'update') {
      updates++;
      if (line.charCodeAt(at) !== OPEN_BRACE) return -1;
      updateOpen = at;
    }
    return skipValue(line, at);
  };
  const end = members(line, top, (key, at) => {
    if (key !== 'params') return skipValue(line, at);
    params++;
    return line.charCodeAt(at) === OPEN_BRACE ? members(line, at, inParams) : -1;
  });
  if (end < 0 || params !== 1 || sids !== 1 || updates !== 1) return undefined;
  return { sidStart, sidEnd, updateOpen };
}

/**
 * The line with `params.sessionId` set to `sessionId` (given as its JSON string, e.g. `"abc"`) and `insert` (members with a trailing comma,
 * e.g. `"messageId":"…",`) put first in `params.update`; undefined when the shape is not the plain one.
 */
export function rewriteUpdateLine(line: string, sid: string, insert = ''): string | undefined {
  const at = updateSpans(line);
  if (!at) return undefined;
  const { sidStart, sidEnd, updateOpen } = at;
  // Agents put sessionId first; the other order is JSON too.
  if (sidStart < updateOpen)
    return line.slice(0, sidStart) + sid + line.slice(sidEnd, updateOpen + 1) + insert + line.slice(updateOpen + 1);
  return line.slice(0, updateOpen + 1) + insert + line.slice(updateOpen + 1, sidStart) + sid + line.slice(sidEnd);
}
