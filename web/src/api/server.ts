/**
 * The one door to the server: the typed client and contract types of src/server (DESIGN: web/
 * sees nothing else). The token comes from the URL fragment `#token=…` that `talaria serve`
 * prints; it is kept in sessionStorage (so a refresh keeps working) and removed from the
 * address bar (so it is not shared by copying the URL).
 */
import { connectServer, ServerError, type ServerClient } from '../../../src/server/client/index.js';
import { TOKEN_COOKIE } from '../../../src/server/contract/index.js';

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

const KEY = 'talaria.token';

/** Reads the token from the fragment (then hides it) or from this tab's storage. */
export function takeToken(loc: Location = window.location): string | undefined {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash) {
    sessionStorage.setItem(KEY, fromHash);
    // A cookie lets plain links (exports) carry the token too; scoped to this origin.
    document.cookie = `${TOKEN_COOKIE}=${encodeURIComponent(fromHash)}; path=/; SameSite=Strict`;
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', loc.pathname + loc.search + (rest ? `#${rest}` : '#/'));
    return fromHash;
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
  document.cookie = `${TOKEN_COOKIE}=; path=/; max-age=0`;
}

/**
 * The page authenticates with the cookie set by takeToken (fetch and the WebSocket both send it;
 * no token in a subprotocol or header that could end up in a log).
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
