/**
 * Request checks that run before anything else on every path: the Host allow-list (DNS
 * rebinding), the Origin check (cross-site requests) and the token (header, cookie or the
 * WebSocket subprotocol). Tokens are never logged.
 */
import { TOKEN_COOKIE, TOKEN_PROTOCOL_PREFIX } from './contract/index.js';
import { isLoopbackHost } from '../os/loopback.js';

export interface GuardConfig {
  /** Host header values accepted (host:port, lower case). */
  hosts: Set<string>;
  /** Origins accepted (scheme://host:port). Requests without Origin (curl, Node) pass. */
  origins: Set<string>;
  /** This server's session cookie (cookieName(port)); '' until the port is known. */
  cookie: string;
}

/**
 * The page's session cookie is named after the port: cookies ignore ports, so two servers on one
 * host would otherwise share (and overwrite) one cookie, and a page on any other port could
 * read it. It is HttpOnly, so no script reads it at all.
 */
export function cookieName(port: number): string {
  return `${TOKEN_COOKIE}_${port}`;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A loopback bind address (os/loopback.ts: the one check). */
export const isLoopback = isLoopbackHost;

/** Allowed Host and Origin values for a server bound to `bindHost:port`. */
export function guardConfig(bindHost: string, port: number, tls: boolean, extraHosts: string[] = []): GuardConfig {
  const names = new Set<string>(extraHosts.map((h) => h.toLowerCase()));
  if (isLoopback(bindHost)) for (const n of LOOPBACK_NAMES) names.add(n);
  else names.add(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost.toLowerCase());
  const hosts = new Set<string>();
  const origins = new Set<string>();
  const scheme = tls ? 'https' : 'http';
  for (const n of names) {
    hosts.add(`${n}:${port}`);
    origins.add(`${scheme}://${n}:${port}`);
  }
  return { hosts, origins, cookie: cookieName(port) };
}

export function hostAllowed(g: GuardConfig, host: string | undefined): boolean {
  return host !== undefined && g.hosts.has(host.toLowerCase());
}

export function originAllowed(g: GuardConfig, origin: string | undefined): boolean {
  return origin === undefined || g.origins.has(origin.toLowerCase());
}

/**
 * Every value of cookie `name` in a Cookie header, in order. Values that do not decode (a planted
 * `%`) are skipped, never thrown: this runs before any token check, on input from anyone.
 */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header || !name) return [];
  const out: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      out.push(decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // Malformed percent-encoding: not a token.
    }
  }
  return out;
}

export interface TokenHeaders {
  authorization?: string | undefined;
  cookie?: string | undefined;
  protocol?: string | undefined;
}

/**
 * The identity of a request: `Authorization: Bearer …`, a `talaria.token.…` subprotocol, or this
 * server's cookie. Every cookie of that name is tried: a page on another port can plant one
 * with a narrower path (sent first), which must not shadow the real one.
 */
export function identify<T>(h: TokenHeaders, cookie: string, verify: (token: string) => T | undefined): T | undefined {
  const auth = h.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (auth) return verify(auth);
  const proto = h.protocol
    ?.split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (proto) return verify(proto.slice(TOKEN_PROTOCOL_PREFIX.length));
  for (const v of cookieValues(h.cookie, cookie)) {
    const id = verify(v);
    if (id !== undefined) return id;
  }
  return undefined;
}
