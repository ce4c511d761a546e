/**
 * Hermes' profiles as a screen shows them: each profile (the CLI's list, else the folders), a
 * problem with the CLI if it had one, and each profile's config lint. Hermes' own, so it lives
 * with Hermes (talaria-acp/hermes), not on the generic harness.
 */
import { findHermes } from './binary.js';
import { lintHermesProfile, type LintIssue } from './config-lint.js';
import { listProfiles, type HermesProfile } from './profiles.js';
import type { ProviderEnv } from '../types.js';

export interface HermesProfileListing {
  profiles: HermesProfile[];
  problem?: string;
  lint: { profile: string; home: string; issues: LintIssue[] }[];
}

export async function hermesProfileListing(
  env: ProviderEnv,
  o: { timeoutMs?: number } = {},
): Promise<HermesProfileListing> {
  const bin = findHermes(env).found?.command;
  const listing = await listProfiles(env, {
    ...(bin ? { command: bin } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  const lint = listing.profiles.map((p) => ({
    profile: p.name,
    home: p.home,
    issues: lintHermesProfile(p.home, env.env),
  }));
  return { profiles: listing.profiles, ...(listing.cliProblem ? { problem: listing.cliProblem } : {}), lint };
}
