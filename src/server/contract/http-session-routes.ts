import { z } from 'zod';
import {
  branchNode,
  pendingPermission,
  permissionRule,
  queuedPrompt,
  sessionSnapshot,
  sessionSummary,
  steerHow,
  wireFrame,
  workspace,
} from './models.js';
import { id, ok, archivedFilter, bool, newSessionBody, promptBody, branchBody, runBody } from './http-schemas.js';
import type { RouteDef } from './http-schemas.js';
import { ROUTE_TABLE } from './wire.js';

/** The session routes of the HTTP API (http.ts joins them into the one table). */
export const SESSION_ROUTES = {
  listSessions: {
    ...ROUTE_TABLE.listSessions,
    query: z.object({
      workspace: z.string().optional(),
      archived: archivedFilter,
      agent: bool,
      /** Every host's sessions with `host` and `presence` (a server in a fleet; otherwise the same list). */
      fleet: bool,
    }),
    response: z.object({ sessions: z.array(sessionSummary), agentProblem: z.string().optional() }),
  },
  createSession: {
    ...ROUTE_TABLE.createSession,
    params: id,
    body: newSessionBody,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  /**
   * One call for a one-shot run (`talaria run` on a warm server, issue 16): opens the folder as a
   * workspace, starts a new session (a warm spare when one fits) and sends the prompt. The
   * snapshot is from before the prompt: a subscriber `since` its seq gets the whole turn. An
   * error answer means no prompt was sent.
   */
  run: {
    ...ROUTE_TABLE.run,
    body: runBody,
    response: z.object({
      workspace,
      snapshot: sessionSnapshot,
      turn: z.object({ id: z.string(), queued: z.boolean(), position: z.number() }),
    }),
  },
  /**
   * `run`, answered with the turn as it happens (NDJSON, run-stream.ts): the line
   * `{"type":"run", workspace, snapshot, turn}`, then each event of the session after the snapshot,
   * one per line, until the run's turn has ended (`{"type":"snapshot"}` lines stand for events a slow
   * reader missed once the log no longer holds them). An error answer (JSON) sent no prompt.
   */
  runStream: {
    ...ROUTE_TABLE.runStream,
    body: runBody,
  },
  /** The snapshot; opens the session at its agent first when `open=true` (load, resume or the stored thread). */
  snapshot: {
    ...ROUTE_TABLE.snapshot,
    params: id,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  openSession: {
    ...ROUTE_TABLE.openSession,
    params: id,
    body: z.object({
      provider: z.string().optional(),
      profile: z.string().optional(),
      /**
       * For a session only the agent lists (`stored: false` in `?agent=true`): the workspace whose
       * list showed it (its `workspaceId`). The agent loads it and Talaria stores it from then on.
       */
      workspace: z.string().optional(),
    }),
    response: z.object({ snapshot: sessionSnapshot }),
  },
  prompt: {
    ...ROUTE_TABLE.prompt,
    params: id,
    body: promptBody,
    response: z.object({ id: z.string(), queued: z.boolean(), position: z.number() }),
  },
  queue: {
    ...ROUTE_TABLE.queue,
    params: id,
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  editQueued: {
    ...ROUTE_TABLE.editQueued,
    params: z.object({ id: z.string().min(1), item: z.string().min(1) }),
    body: z.object({ text: z.string().min(1) }),
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  removeQueued: {
    ...ROUTE_TABLE.removeQueued,
    params: z.object({ id: z.string().min(1), item: z.string().min(1) }),
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  cancel: {
    ...ROUTE_TABLE.cancel,
    params: id,
    response: z.object({ cancelled: z.boolean() }),
  },
  setModel: {
    ...ROUTE_TABLE.setModel,
    params: id,
    body: z.object({ modelId: z.string().min(1) }),
    response: ok,
  },
  setMode: {
    ...ROUTE_TABLE.setMode,
    params: id,
    body: z.object({ modeId: z.string().min(1) }),
    response: ok,
  },
  permissions: {
    ...ROUTE_TABLE.permissions,
    params: id,
    response: z.object({ pending: z.array(pendingPermission) }),
  },
  /** First answer wins; a later one gets `conflict` with who answered. */
  answerPermission: {
    ...ROUTE_TABLE.answerPermission,
    params: z.object({ id: z.string().min(1), requestKey: z.string().min(1) }),
    /** `rule`: with an "always" answer, the (edited) rule to keep for this session instead of the one the answer implies. */
    body: z.union([
      z.object({ optionId: z.string().min(1), rule: permissionRule.optional() }),
      z.object({ cancel: z.literal(true) }),
    ]),
    response: z.object({ answeredBy: z.string() }),
  },
  archive: {
    ...ROUTE_TABLE.archive,
    params: id,
    body: z.object({ archived: z.boolean() }),
    response: z.object({ session: sessionSummary }),
  },
  fork: {
    ...ROUTE_TABLE.fork,
    params: id,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  /** The branch tree the session belongs to, from its root; `current` is this session. */
  branches: {
    ...ROUTE_TABLE.branches,
    params: id,
    response: z.object({ current: z.string(), tree: branchNode }),
  },
  /** Rewind or continue elsewhere: a new session (a branch); with `text`, its first message is sent. */
  createBranch: {
    ...ROUTE_TABLE.createBranch,
    params: id,
    body: branchBody,
    response: z.object({ snapshot: sessionSnapshot, turnId: z.string().optional() }),
  },
  /**
   * "Steer now": into the running turn (the agent's own way, else cancel and resend); a normal
   * message when nothing runs. `queued`: a queued prompt's id, taken off the queue and steered in
   * one step; the `queue.updated` that drops it names the turn that carries it (`started`).
   */
  steer: {
    ...ROUTE_TABLE.steer,
    params: id,
    body: z
      .object({
        text: z
          .string()
          .refine((t) => t.trim() !== '', { message: 'a steer needs text' })
          .optional(),
        queued: z.string().min(1).optional(),
      })
      .refine((b) => (b.text === undefined) !== (b.queued === undefined), {
        message: "give text, or queued (a queued prompt's id), not both",
      }),
    response: z.object({ how: steerHow, via: z.string().optional(), turnId: z.string().optional() }),
  },
  /** Text: Markdown, JSON or an NDJSON wire fixture (Content-Disposition names the file). */
  exportSession: {
    ...ROUTE_TABLE.exportSession,
    params: id,
    query: z.object({ format: z.enum(['md', 'json', 'fixture']).default('md') }),
  },
  importSession: {
    ...ROUTE_TABLE.importSession,
    body: z.object({
      text: z.string().min(1),
      provider: z.string().optional(),
      cwd: z.string().optional(),
      title: z.string().optional(),
    }),
    response: z.object({ session: sessionSummary }),
  },
  /** The session's wire log (both directions) for an inspector; page with `after`. */
  wireLog: {
    ...ROUTE_TABLE.wireLog,
    params: id,
    query: z.object({
      after: z.coerce.number().int().min(0).optional(),
      limit: z.coerce.number().int().min(1).max(5000).optional(),
    }),
    response: z.object({ frames: z.array(wireFrame), next: z.number().optional() }),
  },
} as const satisfies Record<string, RouteDef>;
