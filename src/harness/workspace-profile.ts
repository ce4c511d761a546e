/**
 * The agent profile a workspace's new sessions use, from the workspace row in the store:
 *  - "own profile" on (Hermes only): `talaria-<folder>-<hash>`, created with `hermes profile
 *    create NAME --clone` the first time a session needs it (once, however many start together);
 *  - else the profile the workspace was set to, for the agent that has profiles.
 * Every road to a new agent process of the workspace (new session, warm spare, model catalog,
 * `talaria run/chat`) asks here, so the profile follows the workspace, not the face.
 */
import { existsSync } from 'node:fs';
import { findHermes } from '../providers/hermes/binary.js';
import { hermesRoot, isProfileName, profileHome } from '../providers/hermes/home.js';
import { ensureProfile, workspaceProfileName } from '../providers/hermes/profile-create.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderEnv } from '../providers/types.js';
import { TalariaError } from '../protocol/errors.js';
import type { Store, Workspace as WorkspaceRow, WorkspacesRepo } from '../store/index.js';

/** The provider whose own profile Talaria can create (its `profile create` is Hermes'). */
export const OWN_PROFILE_PROVIDER = 'hermes';

export interface WorkspaceProfile {
  profile: string;
  /** The workspace's own profile (created on demand). */
  own: boolean;
  /** Its folder exists (only looked at for the own profile). */
  exists?: boolean;
}

/** What the row says for `provider` (no I/O): undefined when it sets nothing for that agent. */
export function profileOfRow(
  registry: ProviderRegistry,
  w: WorkspaceRow,
  provider: string,
): WorkspaceProfile | undefined {
  if (!registry.get(provider)?.profiles) return undefined;
  if (w.ownProfile && provider === OWN_PROFILE_PROVIDER) return { profile: workspaceProfileName(w.path), own: true };
  // A set profile belongs to the bound agent, or to the agent with profiles when the binding has none.
  const bound = w.defaultProvider;
  if (w.profile && (!bound || bound === provider || !registry.get(bound)?.profiles))
    return { profile: w.profile, own: false };
  return undefined;
}

export interface ProfileResolver {
  /** The profile for a new session of `provider` in workspace `id`, the own one created first. */
  resolve(workspaceId: string, provider: string): Promise<WorkspaceProfile | undefined>;
  /** The same without creating anything (for warming: never create a profile ahead of a session). */
  peek(workspaceId: string, provider: string): WorkspaceProfile | undefined;
}

export function profileResolver(c: { registry: ProviderRegistry; store: Store; env: ProviderEnv }): ProfileResolver {
  const peek = (id: string, provider: string): WorkspaceProfile | undefined => {
    const w = c.store.workspaces.get(id);
    const p = w ? profileOfRow(c.registry, w, provider) : undefined;
    return p?.own ? { ...p, exists: existsSync(profileHome(hermesRoot(c.env), p.profile)) } : p;
  };
  return {
    peek,
    async resolve(id, provider) {
      const p = peek(id, provider);
      if (!p?.own) return p;
      const bin = findHermes(c.env).found?.command;
      if (!bin)
        throw new TalariaError(
          'spawn_failed',
          `Hermes is not installed, so this workspace's profile "${p.profile}" cannot be created`,
          {
            profile: p.profile,
          },
        );
      const w = c.store.workspaces.get(id)!;
      await ensureProfile(c.env, p.profile, { command: bin, clone: true, description: `Talaria workspace ${w.path}` });
      return { ...p, exists: true };
    },
  };
}

export interface ProfileChange {
  /** A named profile for new sessions (`null`: none, Hermes' active one); turns the own profile off. */
  profile?: string | null;
  /** Use the workspace's own profile (true) or not (false). */
  own?: boolean;
}

/** Sets what new sessions of the workspace `id` use; returns the row (undefined: no such workspace). */
export function setWorkspaceProfile(
  workspaces: Pick<WorkspacesRepo, 'update'>,
  id: string,
  change: ProfileChange,
): WorkspaceRow | undefined {
  if (typeof change.profile === 'string' && !isProfileName(change.profile))
    throw new TalariaError('invalid_argument', `"${change.profile}" is not a Hermes profile name`, {
      profile: change.profile,
    });
  const own = change.own ?? (change.profile !== undefined ? false : undefined);
  return workspaces.update(id, {
    ...(change.profile !== undefined ? { profile: change.profile } : {}),
    ...(own !== undefined ? { ownProfile: own } : {}),
  });
}
