/**
 * What keeps `talaria serve`'s link working across restarts (issue 37): a stable port and a
 * lasting token, so open tabs and bookmarks survive a restart.
 *
 * - The port: the one used last time, else DEFAULT_PORT; the next free one when that is taken.
 *   An explicit `--port N` is used as given (`--port 0`: a random free port, as before).
 * - The token: a controller token stored like any other (hashed) in server-tokens.json, labelled
 *   "serve"; the token itself is kept in <home>/serve-link.json (mode 0600) so the next start
 *   prints the same link. It changes when that record is revoked (`talaria serve tokens revoke
 *   ID`) or on `talaria serve --new-token`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { addToken, readTokens, revokeToken } from '../../server/index.js';
import { hashToken } from '../../server/tokens.js';

export const DEFAULT_PORT = 4317;
/** How many ports after the preferred one are tried before giving up on a stable one. */
const PORT_TRIES = 20;
export const SERVE_LINK_FILE = 'serve-link.json';
export const SERVE_TOKEN_LABEL = 'serve';

interface LinkState {
  /** The token record's id in server-tokens.json. */
  id?: string;
  token?: string;
  /** The port the last start listened on (without an explicit --port). */
  port?: number;
}

export function serveLinkFile(home: string): string {
  return join(home, SERVE_LINK_FILE);
}

function readState(file: string): LinkState {
  if (!existsSync(file)) return {};
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as LinkState;
    return typeof s === 'object' && s !== null ? s : {};
  } catch {
    return {}; // unreadable: a new token and the default port, written over it
  }
}

function writeState(file: string, s: LinkState): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * The server's lasting token: the stored one while its record is still in the tokens file, else a
 * new one (first start, after a revoke, or `rotate`). `created` says whether it is new.
 */
export function serveToken(
  home: string,
  tokensFile: string,
  o: { rotate?: boolean } = {},
): { token: string; id: string; created: boolean } {
  const file = serveLinkFile(home);
  const s = readState(file);
  const records = readTokens(tokensFile);
  const live = s.token && s.id ? records.find((r) => r.id === s.id && r.hash === hashToken(s.token!)) : undefined;
  if (live && !o.rotate) return { token: s.token!, id: live.id, created: false };
  if (live) revokeToken(tokensFile, live.id);
  const { token, record } = addToken(tokensFile, 'controller', SERVE_TOKEN_LABEL);
  writeState(file, { ...s, id: record.id, token });
  return { token, id: record.id, created: true };
}

/** Remembers the port this start listened on, for the next one. */
export function rememberPort(home: string, port: number): void {
  const file = serveLinkFile(home);
  const s = readState(file);
  if (s.port !== port) writeState(file, { ...s, port });
}

function free(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** The port to listen on without `--port`: the last one, else DEFAULT_PORT, else the next free one after it. */
export async function stablePort(home: string, host: string): Promise<number> {
  const s = readState(serveLinkFile(home));
  const first = Number.isInteger(s.port) && s.port! > 0 && s.port! < 65536 ? s.port! : DEFAULT_PORT;
  const tried = new Set<number>();
  for (const start of [first, DEFAULT_PORT]) {
    for (let p = start; p < Math.min(start + PORT_TRIES, 65536); p++) {
      if (tried.has(p)) continue;
      tried.add(p);
      if (await free(p, host)) return p;
    }
  }
  return 0; // nothing free near them: any free port
}
