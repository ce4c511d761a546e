/** The contract's view of one agent's readiness, shared by the sign-in, registry and pty routes. */
import type { Provider, Readiness } from '../providers/types.js';
import type { ProviderInfo } from './contract/index.js';

/** An agent's readiness as the contract's ProviderInfo (the sign-in methods of an `auth` gap included). */
export function signInInfo(p: Provider, r: Readiness): ProviderInfo {
  return {
    id: p.id,
    label: p.label,
    ready: r.ready,
    source: p.source,
    gaps: [...r.gaps, ...r.warnings].map((g) => ({ code: g.code, message: g.message, fix: g.fix, ...(g.authMethods ? { authMethods: g.authMethods } : {}) })),
    ...(r.version ? { version: r.version } : {}),
  };
}
