/**
 * Where a remote ACP endpoint is (`talaria acp --attach URL`, `--agent-url`, a `url` in
 * config.json): a ws(s) URL (http(s) is accepted and mapped, the bare origin means `/acp`), and
 * its token, from `--token`, the URL fragment `#token=…` (what `talaria serve` prints) or
 * TALARIA_TOKEN. The token never stays in the URL. Off loopback, TLS and a token are required:
 * the link carries the session and the token.
 */
import { TalariaError } from '../protocol/errors.js';
import { isLoopbackHost } from '../os/loopback.js';

export interface AcpUrl {
  /** ws:// or wss:// with no fragment (the token is apart). */
  url: string;
  token: string | undefined;
  loopback: boolean;
}

const SCHEMES: Record<string, string> = { 'ws:': 'ws:', 'wss:': 'wss:', 'http:': 'ws:', 'https:': 'wss:' };

/** Parses and checks an ACP endpoint; `what` names the option in the error ('--attach', '--agent-url'). */
export function acpUrl(
  text: string,
  o: { what: string; token?: string | undefined; envToken?: string | undefined },
): AcpUrl {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    throw new TalariaError(
      'invalid_argument',
      `${o.what}: not a URL: '${text}' (expected ws://HOST:PORT/acp or wss://HOST/acp)`,
    );
  }
  const scheme = SCHEMES[u.protocol];
  if (!scheme)
    throw new TalariaError(
      'invalid_argument',
      `${o.what}: ${u.protocol}// is not an ACP transport (use ws:// on loopback or wss://)`,
    );
  const fromFragment = new URLSearchParams(u.hash.replace(/^#/, '')).get('token') ?? undefined;
  u.hash = '';
  u.protocol = scheme;
  if (u.pathname === '' || u.pathname === '/') u.pathname = '/acp';
  const loopback = isLoopbackHost(u.hostname);
  if (!loopback && scheme === 'ws:') {
    throw new TalariaError(
      'invalid_argument',
      `${o.what}: refusing plain ws:// to ${u.hostname}, which is not loopback: the session and the token would cross the network unencrypted (use wss://)`,
    );
  }
  const token = o.token || fromFragment || o.envToken || undefined;
  if (!loopback && !token)
    throw new TalariaError(
      'invalid_argument',
      `${o.what}: ${u.hostname} is not loopback: a token is required (#token=… in the URL, --token or TALARIA_TOKEN)`,
    );
  return { url: u.toString(), token, loopback };
}
