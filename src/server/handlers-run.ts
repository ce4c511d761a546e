/**
 * `POST /api/run` (issue 16): a one-shot run in one round trip — the folder opened as a
 * workspace, a new session (a warm spare when one fits) and its prompt — so `talaria run` on a
 * warm server waits for one answer instead of four. The steps are the ones `openWorkspace`,
 * `createSession` and `prompt` take; the prompt is the last, so an error answer means no prompt
 * was sent (the CLI then runs locally without running it twice). `POST /api/run/stream`: the
 * same, answered with the turn as it happens (run-stream.ts); with `session`, an existing session
 * is opened and prompted instead (`talaria run --session`).
 */
import type { Harness, HarnessSession } from '../harness/index.js';
import type { Handler } from './app.js';
import type { RouteName } from './contract/index.js';
import { existingDir, type SessionOps } from './handlers-sessions.js';
import { workspaceInfo } from './handlers-misc.js';
import type { Hub, LiveSession } from './hub.js';
import { HttpError } from './http-error.js';
import { openRunStream } from './run-stream.js';

export interface NewSessionBody {
  provider?: string;
  profile?: string;
  permissionMode?: string;
  mcpServers?: unknown[];
}

/** The new session's creator, when it is a one-shot run (`POST /api/run`): the list marks it. */
type CreatedBy = { createdBy?: 'run' };

/** A new session in the workspace at `path` (createSession's and run's). */
export async function newSessionAt(harness: Harness, path: string, b: NewSessionBody & CreatedBy): Promise<HarnessSession> {
  if (b.provider && !harness.registry.has(b.provider)) throw new HttpError('invalid_argument', `no agent "${b.provider}"`, 'GET /api/providers lists them.');
  return harness.workspaces.open(path).newSession({
    ...(b.provider ? { provider: b.provider } : {}),
    ...(b.profile ? { profile: b.profile } : {}),
    ...(b.permissionMode ? { permissionMode: b.permissionMode as never } : {}),
    ...(b.mcpServers ? { mcpServers: b.mcpServers } : {}),
    ...(b.createdBy ? { createdBy: b.createdBy } : {}),
  });
}

export function runHandlers(harness: Harness, hub: Hub, ops: SessionOps, o: { maxBufferedBytes: number }): Partial<Record<RouteName, Handler>> {
  /** Workspace, session, snapshot: everything a run does before its prompt (an error here sent nothing). */
  const setUp = async (body: unknown) => {
    const b = body as NewSessionBody & { path?: string; session?: string; text: string };
    let ls: LiveSession;
    let workspace: ReturnType<typeof workspaceInfo>;
    if (b.session !== undefined) {
      // `talaria run --session`: the stored session, opened at its agent when it is not live.
      ls = await ops.live(b.session, { ...(b.provider ? { provider: b.provider } : {}), ...(b.profile ? { profile: b.profile } : {}) });
      workspace = workspaceInfo(ops.workspaceOf(ops.row(ls.hs.id)).row);
    } else {
      const path = existingDir(b.path!, 'the workspace');
      workspace = workspaceInfo(harness.workspaces.open(path).row);
      ls = ops.attach(await newSessionAt(harness, path, { ...b, createdBy: 'run' }));
    }
    const hs = ls.hs;
    // The snapshot before the prompt: a subscriber `since` its seq gets the whole turn.
    const snapshot = hub.snapshot(ops.row(hs.id));
    return { text: b.text, workspace, snapshot, ls };
  };
  return {
    async run({ body }) {
      const { text, workspace, snapshot, ls } = await setUp(body);
      const turn = hub.queue.prompt(ls, text, []);
      return { workspace, snapshot, turn };
    },
    async runStream({ body }) {
      const { text, workspace, snapshot, ls } = await setUp(body);
      // Subscribed before the prompt: its first events are appended while it is sent.
      const s = openRunStream(hub, snapshot.session.id, o.maxBufferedBytes);
      try {
        s.begin({ workspace, snapshot, turn: hub.queue.prompt(ls, text, []) });
      } catch (err) {
        s.abort();
        throw err;
      }
      return s.response;
    },
  };
}
