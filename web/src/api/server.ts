/**
 * The one door to the server: the typed client and contract types of src/server (DESIGN: web/
 * sees nothing else). The token comes from the URL fragment `#token=…` that `talaria serve`
 * prints; the page trades it for an HttpOnly cookie (no script, ours or another port's, can read
 * it; a refresh keeps working) and removes it from the address bar.
 */
import { connectServer, ServerError, type ServerClient } from '../../../src/server/client/index.js';

export type {
  BranchNodeInfo,
  PendingPermission,
  ProviderInfo,
  QueuedPrompt,
  Role,
  ServerMessage,
  SessionSnapshot,
  SessionSummaryInfo,
  StoredRuleInfo,
  StreamEvent,
  WorkspaceInfo,
} from '../../../src/server/contract/index.js';
export { ServerError, type ServerClient };

/**
 * Takes the link's `#token=` out of the address bar (so copying the URL never shares it) and
 * trades it for this server's HttpOnly cookie. Without a token in the link, the cookie a
 * previous visit got is used. A token the server refuses changes no cookie: a bad link in one tab
 * leaves every other tab signed in.
 */
export function signIn(loc: Location = window.location): Promise<SignedIn> {
  // Once per page: the fragment is gone after the first read (React's dev mode runs effects twice).
  return (signingIn ??= trade(loc));
}

type SignedIn = { me: Me; client: ServerClient } | { refused: 'no-token' | 'bad-token'; message?: string };
let signingIn: Promise<SignedIn> | undefined;

async function trade(loc: Location): Promise<SignedIn> {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash) {
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', loc.pathname + loc.search + (rest ? `#${rest}` : '#/'));
  }
  const client = connect();
  try {
    const me = fromHash ? await connectServer(loc.origin, fromHash).api.signIn() : await client.api.me();
    return { me, client };
  } catch (e) {
    if (e instanceof ServerError && e.status === 401) return fromHash ? { refused: 'bad-token', message: e.message } : { refused: 'no-token' };
    throw e;
  }
}

type Me = Awaited<ReturnType<ServerClient['api']['me']>>;

/**
 * The page authenticates with the cookie signIn got (fetch and the WebSocket both send it; no
 * token in a subprotocol or header that could end up in a log).
 */
export function connect(): ServerClient {
  return connectServer(window.location.origin);
}

/** A sentence for a person out of whatever was thrown. */
export function describeError(e: unknown): { message: string; fix?: string; code?: string } {
  if (e instanceof ServerError) return { message: e.message, code: e.code, ...(e.fix ? { fix: e.fix } : {}) };
  if (e instanceof Error) return { message: e.message };
  return { message: String(e) };
}
