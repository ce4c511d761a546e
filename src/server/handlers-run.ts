/**
 * `POST /api/run` (issue 16): a one-shot run in one round trip — the folder opened as a
 * workspace, a new session (a warm spare when one fits) and its prompt — so `talaria run` on a
 * warm server waits for one answer instead of four. The steps are the ones `openWorkspace`,
 * `createSession` and `prompt` take; the prompt is the last, so an error answer means no prompt
 * was sent (the CLI then runs locally without running it twice). `POST /api/run/stream`, the one
 * `talaria run` uses: the same run, answered with the turn as it happens (run-stream.ts); with
 * `session`, an existing session is opened and prompted instead (`talaria run --session`).
 * `POST /api/run` stays, documented (README), as the answer-only form of the same run: one setUp,
 * one prompt, and the caller subscribes itself.
 */
import type { Harness } from '../harness/index.js';
import type { HandlerMap, RouteCtx } from './app.js';
import { existingDir, newSessionAt, workspaceInfo, type SessionOps } from './session-ops.js';
import type { Hub, LiveSession } from './hub.js';
import { openRunStream } from './run-stream.js';
import { HttpError } from './http-error.js';
import { sendPrompt } from './prompt-queue.js';

export function runHandlers(
  harness: Harness,
  hub: Hub,
  ops: SessionOps,
  o: { maxBufferedBytes: number },
): Partial<HandlerMap> {
  /** Workspace, session, snapshot: everything a run does before its prompt (an error here sent nothing). */
  const setUp = async (b: RouteCtx<'run'>['body']) => {
    let ls: LiveSession;
    let workspace: ReturnType<typeof workspaceInfo>;
    if (b.session !== undefined) {
      // `talaria run --session`: the stored session, opened at its agent when it is not live.
      ls = await ops.live(b.session, {
        ...(b.provider ? { provider: b.provider } : {}),
        ...(b.profile ? { profile: b.profile } : {}),
      });
      workspace = workspaceInfo(ops.workspaceOf(ops.row(ls.hs.id)).row);
    } else {
      // The schema gives exactly one of path and session; this says so to the compiler too.
      if (b.path === undefined) throw new HttpError('invalid_argument', 'give path (a new session) or session');
      const path = existingDir(b.path, 'the workspace');
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
      const turn = sendPrompt(ls.hs, text, []);
      return { workspace, snapshot, turn };
    },
    async runStream({ body }) {
      const { text, workspace, snapshot, ls } = await setUp(body);
      // Subscribed before the prompt: its first events are appended while it is sent.
      const s = openRunStream(hub, snapshot.session.id, o.maxBufferedBytes);
      try {
        s.begin({ workspace, snapshot, turn: sendPrompt(ls.hs, text, []) });
      } catch (err) {
        s.abort();
        throw err;
      }
      return s.response;
    },
  };
}
