/**
 * Python's `json.dumps` as Hermes and its tools write it (separators `", "` / `": "`,
 * non-ASCII escaped), plus `_json_loads_maybe`: the first JSON value of a string even
 * when text follows it (a steer injected after a tool result, a hint after a payload).
 */

const escapeNonAscii = (s: string): string =>
  s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `json.dumps(value)` (indent undefined) or `json.dumps(value, indent=N)`. */
export function pyDumps(value: unknown, indent?: number): string {
  if (indent !== undefined) return escapeNonAscii(JSON.stringify(value, null, indent));
  const enc = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (Array.isArray(v)) return `[${v.map(enc).join(', ')}]`;
    if (typeof v === 'object') {
      return `{${Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${JSON.stringify(k)}: ${enc(x)}`)
        .join(', ')}}`;
    }
    return JSON.stringify(v);
  };
  return escapeNonAscii(enc(value));
}

/** Index just past the JSON value starting at `s[0]` ('{' or '['), or -1. */
function valueEnd(s: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Parsed JSON, else the first JSON object/array the text starts with, else undefined. */
export function jsonLoadsMaybe(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const s = text.trimStart();
    if (!s.startsWith('{') && !s.startsWith('[')) return undefined;
    const end = valueEnd(s);
    if (end < 0) return undefined;
    try {
      return JSON.parse(s.slice(0, end));
    } catch {
      return undefined;
    }
  }
}
