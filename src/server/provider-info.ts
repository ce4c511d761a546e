/** The contract's view of one agent and its readiness: every route that lists or checks agents builds it here. */
import type { Provider, Readiness } from '../providers/types.js';
import type { ProviderInfo } from './contract/index.js';

/**
 * The one builder of the contract's ProviderInfo: who the agent is, its readiness when it was
 * checked (gaps and warnings, the sign-in methods of an `auth` gap, its version), and the npm
 * package it installs from.
 */
export function providerInfo(
  who: { id: string; label: string; source: string },
  r: Readiness | undefined,
  p: Pick<Provider, 'npm'> | undefined,
): ProviderInfo {
  return {
    ...who,
    ...(r ? { ready: r.ready } : {}),
    gaps: r ? gapInfos(r.gaps, r.warnings) : [],
    ...(r?.version ? { version: r.version } : {}),
    ...npmOf(p),
  };
}

/** A provider's readiness as ProviderInfo (the sign-in, registry and pty routes). */
export function signInInfo(p: Provider, r: Readiness): ProviderInfo {
  return providerInfo({ id: p.id, label: p.label, source: p.source }, r, p);
}

/** The npm package an agent installs from, as ProviderInfo carries it. */
function npmOf(p: Pick<Provider, 'npm'> | undefined): { npmPackage?: string } {
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
