/** The cheap JSON-RPC 2.0 shape check every inbound line passes before anyone sees it. */

export const MALFORMED_RESPONSE =
  'malformed response (needs exactly one of result/error, error needs code and message)';

/** undefined when `m` is a valid JSON-RPC 2.0 request, notification or response; else why not. */
export function checkMessage(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null) return 'not an object';
  if (Array.isArray(m)) return 'batches (arrays) are not supported';
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  const method = o.method;
  if (method !== undefined) {
    if (typeof method !== 'string') return 'method must be a string';
    if (o.id !== undefined && !isId(o.id)) return 'invalid id';
    if (o.result !== undefined || o.error !== undefined) return 'a request cannot carry result/error';
    return undefined;
  }
  if (!isId(o.id)) return 'no method and no valid id';
  const hasResult = o.result !== undefined;
  const e = o.error;
  if (hasResult === (e !== undefined)) return MALFORMED_RESPONSE;
  if (e !== undefined) {
    if (typeof e !== 'object' || e === null) return MALFORMED_RESPONSE;
    const err = e as Record<string, unknown>;
    if (!Number.isInteger(err.code) || typeof err.message !== 'string') return MALFORMED_RESPONSE;
  }
  return undefined;
}

function isId(v: unknown): boolean {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}
