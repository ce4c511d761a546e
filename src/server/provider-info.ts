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
    gaps: gapInfos(r.gaps, r.warnings),
    ...(r.version ? { version: r.version } : {}),
    ...npmOf(p),
  };
}

/** The npm package an agent installs from, as ProviderInfo carries it. */
export function npmOf(p: Pick<Provider, 'npm'> | undefined): { npmPackage?: string } {
  return p?.npm ? { npmPackage: p.npm.package } : {};
}

type Gap = Readiness['gaps'][number];

/** Gaps and warnings as the contract lists them (an `auth` gap with its sign-in methods). */
export function gapInfos(gaps: readonly Gap[], warnings: readonly Gap[]): ProviderInfo['gaps'] {
  return [...gaps, ...warnings].map((g) => ({
    code: g.code,
    message: g.message,
    fix: g.fix,
    ...(g.authMethods ? { authMethods: g.authMethods } : {}),
  }));
}
