/**
 * Hermes sessions from its other channels (cli, telegram, …), for every face: listed per Hermes
 * profile (default + <root>/profiles/*), one read with its messages, and continued in Talaria —
 * a new Talaria session seeded from the transcript by the same road as any continue
 * (Workspace.branchSession). Hermes' rows are only read, never written.
 */
import { existsSync } from 'node:fs';
import { TalariaError } from '../protocol/errors.js';
import { hermesRoot, isProfileName, profileHome } from '../providers/hermes/home.js';
import { scanProfiles } from '../providers/hermes/profiles.js';
import {
  listChannelSessions,
  readChannelSession,
  type ChannelList,
  type ChannelSession,
  type ChannelShow,
} from '../providers/hermes/channel-sessions.js';
import { channelEntries } from '../providers/hermes/channel-transcript.js';
import type { ProviderEnv } from '../providers/types.js';
import type { Harness, HarnessSession } from './types.js';

export interface ProfileChannelSessions {
  profile: string;
  home: string;
  read: ChannelList;
}

function homeOf(env: ProviderEnv, profile: string): string {
  if (!isProfileName(profile)) throw new TalariaError('invalid_argument', `not a Hermes profile name: ${profile}`);
  return profileHome(hermesRoot(env), profile);
}

/** Every profile's sessions from other channels (or one profile's), each with what went wrong reading it. */
export function hermesChannelSessions(
  env: ProviderEnv,
  o: { profile?: string; source?: string } = {},
): ProfileChannelSessions[] {
  const root = hermesRoot(env);
  const profiles = o.profile ? [o.profile] : scanProfiles(root);
  return profiles.map((profile) => {
    const home = homeOf(env, profile);
    return { profile, home, read: listChannelSessions(home, o.source ? { source: o.source } : {}) };
  });
}

/** One session and its messages; `profile` default. */
export function hermesChannelSession(env: ProviderEnv, id: string, profile = 'default'): ChannelShow {
  return readChannelSession(homeOf(env, profile), id);
}

/** "Hermes (cli)", "Hermes (telegram)": where the conversation was had. */
export const channelLabel = (s: Pick<ChannelSession, 'source'>, profile: string): string =>
  `Hermes${profile === 'default' ? '' : ` ${profile}`} (${s.source})`;

/**
 * A new Talaria session that continues a Hermes session from another channel: the agent
 * (default Hermes, on the same profile) gets the transcript as a compact seed with the next
 * message. In `workspace` (default: the session's own folder when Hermes recorded one).
 */
export async function continueHermesChannelSession(
  h: Harness,
  o: { id: string; profile?: string; provider?: string; agentProfile?: string; workspace?: string },
): Promise<{ session: HarnessSession; from: ChannelSession }> {
  const profile = o.profile ?? 'default';
  const r = hermesChannelSession(h.env, o.id, profile);
  if (r.kind === 'not-found' || r.kind === 'missing')
    throw new TalariaError('session_not_found', `${r.message} (Hermes profile ${profile})`, { sessionId: o.id });
  if (r.kind !== 'ok') throw new TalariaError('invalid_state', r.message, { sessionId: o.id });
  const entries = channelEntries(r.messages);
  if (entries.length === 0)
    throw new TalariaError('invalid_state', `Hermes session ${o.id} has no messages to continue from`, {
      sessionId: o.id,
    });
  const provider = o.provider ?? 'hermes';
  // Hermes' folder when it still exists here (a gateway row may name another machine's).
  const cwd = r.session.cwd && existsSync(r.session.cwd) ? r.session.cwd : undefined;
  const ws = h.workspaces.open(o.workspace ?? cwd ?? process.cwd());
  const agentProfile = o.agentProfile ?? (provider === 'hermes' && profile !== 'default' ? profile : undefined);
  const session = await ws.branchSession(
    {
      ref: r.session.id,
      fromProvider: 'hermes',
      fromLabel: channelLabel(r.session, profile),
      ...(profile !== 'default' ? { fromProfile: profile } : {}),
      title: r.session.title ?? r.session.preview ?? `Hermes ${r.session.source} session`,
      ...(o.workspace === undefined && cwd ? { cwd } : {}),
      entries,
    },
    { provider, ...(agentProfile ? { profile: agentProfile } : {}) },
  );
  return { session, from: r.session };
}
