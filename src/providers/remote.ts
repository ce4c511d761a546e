/**
 * An ACP agent reachable over WebSocket (`--agent-url wss://HOST/acp`, or a `url` instead of a
 * `command` in config.json): another Talaria's `/acp`, or any agent served by the SDK's `AcpServer`.
 *
 * It runs as a command like any agent: Talaria's own `talaria acp --attach URL`, a stdio ⇄ WebSocket
 * pipe (the SDK's client transport), so everything the host does for a process holds for the link.
 * The quirk set follows what the far side says in `initialize` (a command agent's rule); a dropped
 * link ends the pipe like a crash, and the next use reconnects and loads the session again
 * (`session/load`, the reconnect recipe of ACP v1). The token travels in the pipe's env, never on
 * its command line; ws:// only to loopback, and a token is required off it (acpUrl).
 */
import { fileURLToPath } from 'node:url';
import { acpUrl } from './acp-url.js';

/** The `talaria` launcher beside these sources (bin/talaria.js runs dist/ or, in a checkout, src/). */
const TALARIA_BIN = fileURLToPath(new URL('../../bin/talaria.js', import.meta.url));

export interface RemoteLaunch {
  command: string;
  args: string[];
  /** TALARIA_TOKEN for the pipe, when there is a token. */
  env: Record<string, string>;
  /** The URL without its token, to show. */
  label: string;
}

/** What runs to reach the agent at `url`; throws (invalid_argument) on a URL the rules refuse. */
export function remoteLaunch(
  url: string,
  o: { what: string; token?: string | undefined; envToken?: string | undefined },
): RemoteLaunch {
  const where = acpUrl(url, o);
  return {
    command: process.execPath,
    args: [TALARIA_BIN, 'acp', '--attach', where.url],
    env: where.token ? { TALARIA_TOKEN: where.token } : {},
    label: where.url,
  };
}
