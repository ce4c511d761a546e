/**
 * Sign-in from the page (issue 13): the agent-method POST and the terminal method's pty socket
 * (contract/auth.ts). The typed client covers ROUTES only; these few calls use fetch and the
 * contract's schemas directly. Both authenticate with the page's cookie like everything else.
 */
import {
  AUTH_ROUTES,
  gapAuthMethods,
  ptyPath,
  ptyServerMessage,
  type AuthMethodInfo,
  type ProviderInfo,
  type PtyClientMessage,
  type PtyServerMessage,
} from '../../../src/server/contract/index.js';

export type { AuthMethodInfo };
export type { PtyServerMessage };
export { gapAuthMethods };

/** Signs in with an agent-type method; the provider as checked afterwards, or a thrown Error with `fix`. */
export async function signInWithAgent(providerId: string, methodId: string): Promise<ProviderInfo> {
  const res = await fetch(`/api/agents/${encodeURIComponent(providerId)}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ methodId }),
  });
  const body = (await res.json().catch(() => ({}))) as { message?: string; fix?: string };
  if (!res.ok) throw Object.assign(new Error(body.message ?? `sign-in failed (${res.status})`), { fix: body.fix });
  return AUTH_ROUTES.agentLogin.response.parse(body).provider;
}

/** The methods as the agent lists them to a sign-in (terminal ones included). */
export async function signInMethods(providerId: string): Promise<AuthMethodInfo[]> {
  const res = await fetch(`/api/agents/${encodeURIComponent(providerId)}/login`);
  if (!res.ok) throw new Error(`the sign-in methods could not be read (${res.status})`);
  return AUTH_ROUTES.agentSignInMethods.response.parse(await res.json()).methods;
}

/** The pty socket of a terminal method; output bytes go to `onBytes`, control messages to `onMessage`. */
export function openSignInPty(
  providerId: string,
  methodId: string,
  size: { cols: number; rows: number },
  on: { onBytes(b: Uint8Array): void; onMessage(m: PtyServerMessage): void; onClose(code: number): void },
): { send(m: PtyClientMessage): void; close(): void } {
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = new URLSearchParams({ method: methodId, cols: String(size.cols), rows: String(size.rows) });
  const ws = new WebSocket(`${proto}//${window.location.host}${ptyPath(providerId)}?${q.toString()}`, ['talaria']);
  ws.binaryType = 'arraybuffer';
  ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
    if (typeof e.data !== 'string') return on.onBytes(new Uint8Array(e.data));
    const m = ptyServerMessage.safeParse(JSON.parse(e.data));
    if (m.success) on.onMessage(m.data);
  };
  ws.onclose = (e) => on.onClose(e.code);
  return {
    send(m) {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
    },
    close: () => ws.close(),
  };
}

/** The agent's readiness when it has an `auth` gap (it asked for a sign-in), else undefined. */
export async function authGapOf(providerId: string): Promise<ProviderInfo | undefined> {
  const res = await fetch(`/api/agents/${encodeURIComponent(providerId)}/readiness`);
  if (!res.ok) return undefined;
  const { provider } = AUTH_ROUTES.agentReadiness.response.parse(await res.json());
  return provider.gaps.some((g) => g.code === 'auth') ? provider : undefined;
}
