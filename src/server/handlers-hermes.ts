/** Hermes' profiles: the list, and which one new sessions of a workspace use (a named one or its own). */
import { OWN_PROFILE_PROVIDER, setWorkspaceProfile, type Harness } from '../harness/index.js';
import { workspaceProfileName } from '../providers/hermes/profile-create.js';
import { hermesProfileListing } from '../providers/hermes/profile-listing.js';
import type { HandlerMap } from './app.js';
import { HttpError } from './http-error.js';
import { workspaceInfo } from './session-ops.js';

export function hermesHandlers(harness: Harness): Partial<HandlerMap> {
  return {
    async hermesProfiles({ query }) {
      const wid = query.workspace;
      const w = wid ? harness.workspaces.get(wid) : undefined;
      if (wid && !w) throw new HttpError('not_found', `no workspace ${wid}`);
      const listing = await hermesProfileListing(harness.env);
      const profiles = listing.profiles.map((p) => ({
        name: p.name,
        active: p.active,
        listed: p.listed,
        onDisk: p.onDisk,
        ...(p.model ? { model: p.model } : {}),
      }));
      const set = w ? harness.profileFor(w.id, OWN_PROFILE_PROVIDER) : undefined;
      return {
        profiles,
        ...(listing.problem ? { problem: listing.problem } : {}),
        ...(w
          ? {
              workspace: {
                ...(set ? { profile: set.profile } : {}),
                own: set?.own === true,
                ownName: workspaceProfileName(w.path),
              },
            }
          : {}),
      };
    },
    setWorkspaceProfile({ params, body }) {
      const w = setWorkspaceProfile(harness.workspaces, params.id, {
        ...(body.profile !== undefined ? { profile: body.profile } : {}),
        ...(body.own !== undefined ? { own: body.own } : {}),
      });
      if (!w) throw new HttpError('not_found', `no workspace ${params.id}`);
      return { workspace: workspaceInfo(w) };
    },
  };
}
