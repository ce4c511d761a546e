/** Routes for Hermes sessions from other channels: list, one read-only, continue in Talaria. */
import type { HandlerMap } from './app.js';
import type { Harness } from '../harness/index.js';
import {
  continueHermesChannelSession,
  hermesChannelSession,
  hermesChannelSessions,
} from '../harness/hermes-channels.js';
import { channelEntries } from '../providers/hermes/channel-transcript.js';
import { HttpError } from './http-error.js';
import type { Hub } from './hub.js';
import { existingDir, type SessionOps } from './session-ops.js';

export function hermesSessionHandlers(harness: Harness, hub: Hub, ops: SessionOps): Partial<HandlerMap> {
  return {
    hermesSessions({ query }) {
      const all = hermesChannelSessions(harness.env, {
        ...(query.profile ? { profile: query.profile } : {}),
        ...(query.source ? { source: query.source } : {}),
      });
      return {
        profiles: all.map(({ profile, read }) =>
          read.kind === 'ok'
            ? { profile, kind: 'ok' as const, sessions: read.sessions }
            : { profile, kind: read.kind, message: read.message, sessions: [] },
        ),
      };
    },
    hermesSession({ params }) {
      const r = hermesChannelSession(harness.env, params.id, params.profile);
      if (r.kind === 'not-found') throw new HttpError('not_found', r.message);
      if (r.kind === 'busy') throw new HttpError('busy', r.message);
      if (r.kind !== 'ok') throw new HttpError('conflict', r.message);
      return { profile: params.profile, session: r.session, entries: channelEntries(r.messages) };
    },
    async continueHermesSession({ params, body }) {
      if (body.provider && !harness.registry.has(body.provider))
        throw new HttpError('invalid_argument', `no agent "${body.provider}"`, 'GET /api/providers lists them.');
      const { session } = await continueHermesChannelSession(harness, {
        id: params.id,
        profile: params.profile,
        ...(body.provider ? { provider: body.provider } : {}),
        ...(body.workspace ? { workspace: existingDir(body.workspace, 'workspace') } : {}),
      });
      ops.attach(session);
      hub.sessionChanged(session.id);
      return { id: session.id };
    },
  };
}
