/**
 * Secrets a frame can carry, masked before it is stored, written to a wire log or exported:
 * - `mcpServers[].env` and `mcpServers[].headers` of session/new, load, resume and fork;
 * - the `env` of terminal/create (the agent's command may need a token);
 * - everything in `authenticate` but `methodId` (gateway settings, `_meta` credentials);
 * - the `headers` of providers/set (unstable: "may include authorization");
 * - a password in an MCP server's URL (`https://user:secret@host`).
 * Names and shape stay (which variables, how many headers); each value becomes "[redacted]".
 *
 * Almost every frame is a session/update or a response: those are recognised by one Set lookup
 * on the method (or one regex test on stored text) and handed back untouched, so the store keeps
 * the bytes as received and the hot path never re-serialises.
 */
import { isRecord } from './record.js';

/** What redaction reads of a JSON-RPC message (protocol's `RawMessage` fits). */
interface MessageLike {
  method?: string;
  params?: unknown;
}

export const REDACTED = '[redacted]';

const MCP_METHODS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);
const SECRET_METHODS = new Set([...MCP_METHODS, 'authenticate', 'terminal/create', 'providers/set']);
/** The same names as they can appear in JSON text (a `/` may be escaped as `\/`). */
const SECRET_METHOD_TEXT =
  /"(?:session\\?\/(?:new|load|resume|fork)|authenticate|terminal\\?\/create|providers\\?\/set)"/;

type Obj = Record<string, unknown>;

/** True when `msg` is a request or notification whose params can hold a secret. */
export function mayHoldSecret(msg: MessageLike): boolean {
  return typeof msg.method === 'string' && SECRET_METHODS.has(msg.method);
}

/** `msg` with its secrets masked (a copy), or `msg` itself when there is nothing to mask. */
export function redactMessage<T extends MessageLike>(msg: T): T {
  if (!mayHoldSecret(msg) || !isRecord(msg.params)) return msg;
  const params = redactParams(msg.method!, msg.params);
  return params === msg.params ? msg : { ...msg, params };
}

/**
 * The message text to store or write for a frame: `raw` (the line as received; the message
 * serialised when absent) when it holds no secret, else the masked message serialised.
 */
export function redactFrame(frame: { msg: MessageLike }, raw?: string): string {
  const masked = redactMessage(frame.msg);
  if (masked === frame.msg) return raw ?? JSON.stringify(frame.msg);
  return JSON.stringify(masked);
}

/** The same for stored message text (logs written before masking existed, imported fixtures). */
export function redactMessageText(text: string): string {
  if (!SECRET_METHOD_TEXT.test(text)) return text;
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isRecord(msg)) return text;
  const masked = redactMessage(msg as MessageLike);
  return masked === msg ? text : JSON.stringify(masked);
}

function redactParams(method: string, params: Obj): Obj {
  if (MCP_METHODS.has(method)) {
    const servers = params.mcpServers;
    if (!Array.isArray(servers)) return params;
    const masked = servers.map(redactMcpServer);
    return masked.some((s, i) => s !== servers[i]) ? { ...params, mcpServers: masked } : params;
  }
  if (method === 'terminal/create') return maskField(params, 'env');
  if (method === 'providers/set') return maskField(params, 'headers');
  // authenticate: only the method id says nothing secret.
  const out: Obj = {};
  let changed = false;
  for (const [k, v] of Object.entries(params)) {
    if (k === 'methodId') out[k] = v;
    else {
      out[k] = maskAll(v);
      changed = true;
    }
  }
  return changed ? out : params;
}

function redactMcpServer(server: unknown): unknown {
  if (!isRecord(server)) return server;
  let out = maskField(maskField(server, 'env'), 'headers');
  const url = typeof out.url === 'string' ? maskUrlPassword(out.url) : undefined;
  if (url !== undefined && url !== out.url) out = { ...out, url };
  return out;
}

/** `o` with the values of its `key` (a `[{name, value}]` list or a `{name: value}` map) masked. */
function maskField(o: Obj, key: string): Obj {
  const v = o[key];
  let masked: unknown;
  if (Array.isArray(v)) {
    if (v.length === 0) return o;
    masked = v.map((e) => (isRecord(e) && 'value' in e ? { ...e, value: REDACTED } : maskAll(e)));
  } else if (isRecord(v)) {
    if (Object.keys(v).length === 0) return o;
    masked = Object.fromEntries(Object.keys(v).map((k) => [k, REDACTED]));
  } else if (v === undefined || v === null) {
    return o;
  } else masked = REDACTED;
  return { ...o, [key]: masked };
}

/** Every scalar inside `v` masked; keys and array lengths kept. */
function maskAll(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskAll);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskAll(x)]));
  return v === null || v === undefined ? v : REDACTED;
}

function maskUrlPassword(url: string): string {
  if (!url.includes('@')) return url;
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    u.password = REDACTED;
    return u.toString();
  } catch {
    return url;
  }
}
