/**
 * Hermes' data folders: everything lives in $HERMES_HOME (default ~/.hermes); `-p NAME` uses
 * <root>/profiles/NAME, which has its own config.yaml, .env, SOUL.md, skills/, state.db.
 */
import { basename, dirname, join } from 'node:path';
import type { ProviderEnv } from '../types.js';

export const PROFILE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function isProfileName(name: string): boolean {
  return name === 'default' || PROFILE_RE.test(name);
}

/** The root folder, even when HERMES_HOME already points into a profile. */
export function hermesRoot(ctx: Pick<ProviderEnv, 'env' | 'homeDir'>): string {
  const home = ctx.env.HERMES_HOME?.trim() ? ctx.env.HERMES_HOME.trim() : join(ctx.homeDir, '.hermes');
  const parent = dirname(home);
  return basename(parent) === 'profiles' ? dirname(parent) : home;
}

/** A profile's home; `default` (or none) is the root itself. */
export function profileHome(root: string, profile?: string): string {
  return !profile || profile === 'default' ? root : join(root, 'profiles', profile);
}

/**
 * The profile a `hermes` without `-p` uses: HERMES_HOME's own when set, else the sticky one
 * from `<root>/active_profile` (`hermes profile use NAME`), else default.
 */
export function activeProfile(
  ctx: Pick<ProviderEnv, 'env' | 'homeDir'>,
  read: (file: string) => string | undefined,
): string {
  const home = ctx.env.HERMES_HOME?.trim();
  if (home) return basename(dirname(home)) === 'profiles' ? basename(home) : 'default';
  const name = read(join(hermesRoot(ctx), 'active_profile'))?.trim() ?? '';
  return PROFILE_RE.test(name) ? name : 'default';
}
