/**
 * Request checks that run before anything else on every path: the Host allow-list (DNS
 * rebinding), the Origin check (cross-site requests) and the token (header, cookie or the
 * WebSocket subprotocol). Tokens are never logged.
 */
import { TOKEN_COOKIE, TOKEN_PROTOCOL_PREFIX } from './contract/index.js';

export interface GuardConfig {
  /** Host header values accepted (host:port, lower case). */
  hosts: Set<string>;
  /** Origins accepted (scheme://host:port). Requests without Origin (curl, Node) pass. */
  origins: Set<string>;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || host.startsWith('127.');
}

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
  return { hosts, origins };
}

export function hostAllowed(g: GuardConfig, host: string | undefined): boolean {
  return host !== undefined && g.hosts.has(host.toLowerCase());
}

export function originAllowed(g: GuardConfig, origin: string | undefined): boolean {
  return origin === undefined || g.origins.has(origin.toLowerCase());
}

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The token from `Authorization: Bearer …`, the cookie, or a `talaria.token.…` subprotocol. */
export function tokenFrom(h: { authorization?: string | undefined; cookie?: string | undefined; protocol?: string | undefined }): string | undefined {
  const auth = h.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (auth) return auth;
  const proto = h.protocol
    ?.split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (proto) return proto.slice(TOKEN_PROTOCOL_PREFIX.length);
  return cookie(h.cookie, TOKEN_COOKIE);
}
