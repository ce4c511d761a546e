/** Route handlers for sessions: list, create, open, snapshot, prompt/queue, cancel, choices, permissions, archive, fork, export, import, wire log. */
import type { Harness } from '../harness/index.js';
import { userMessageBack } from '../harness/branches.js';
import type { PermissionRule } from '../permission/types.js';
import type { StoredSession } from '../store/index.js';
import type { HandlerMap } from './app.js';
import type { Hub } from './hub.js';
import { forwardAnswer, forwardPrompt, ownedElsewhere, withFleet, type ServerFleet } from './fleet.js';
import { HttpError } from './http-error.js';
import type { TokenIdentity } from './tokens.js';
import { WireProblems } from './wire-problems.js';
import { agentOf, existingDir, newSessionAt, type SessionOps } from './session-ops.js';
import { queueOf, sendPrompt, steerNow } from './prompt-queue.js';

export function who(identity: TokenIdentity | undefined): string {
  return identity?.label ?? identity?.id ?? 'unknown';
}

export function sessionHandlers(harness: Harness, hub: Hub, ops: SessionOps, fleet?: ServerFleet): Partial<HandlerMap> {
  /** The owner and the forwarder when another live host of the fleet owns the session (refused when nothing forwards). */
  const remote = (id: string) => ownedElsewhere(fleet, ops.row(id).id);
  const snap = (id: string) => ({ snapshot: hub.snapshot(ops.row(id)) });
  /** The snapshot of a session that may be live on another host (then the owner's). */
  const anySnap = async (id: string) => {
    const r = remote(id);
    return r ? { snapshot: await r.forward.snapshot(r.owner, r.id) } : snap(id);
  };
  /** A model or mode: set on the owner when another host runs the session, else here. */
  const choose = async (id: string, kind: 'model' | 'mode', value: string) => {
    const r = remote(id);
    if (r) {
      await r.forward.setChoice(r.owner, r.id, kind, value);
      return { ok: true as const };
    }
    const ls = await ops.live(id);
    // Its clients hear it from the session's catalog (hub.ts), as they do when a caps holder sets it.
    await (kind === 'model' ? ls.hs.setModel(value) : ls.hs.setMode(value));
    return { ok: true as const };
  };
  const checked = new WireProblems((id, fromSeq, limit) => harness.sessions.wire(id, { fromSeq, limit }));
  return {
    async listSessions({ query }) {
      const archived = query.archived ?? 'exclude';
      const filter = {
        ...(archived === 'include' ? { includeArchived: true } : {}),
        ...(archived === 'only' ? { archivedOnly: true } : {}),
      };
      let agentProblem: string | undefined;
      let rows: StoredSession[];
      const wsId = query.workspace;
      if (wsId) {
        const w = harness.workspaces.get(wsId);
        if (!w) throw new HttpError('not_found', `no workspace ${wsId}`);
        rows = harness.sessions.list({ ...filter, workspace: w.path });
        const agent = agentOf(harness, w);
        if (query.agent === 'true' && agent) {
          const r = await harness.workspaces.open(w.path).sessions({ ...filter, agent });
          agentProblem = r.agentProblem;
          const known = new Set(rows.map((x) => x.id));
          const agentOnly = r.sessions.filter((s) => !s.stored && !known.has(s.id));
          for (const s of agentOnly) if (s.title) ops.agentTitles.set(s.id, s.title);
          const extra = agentOnly.map((s) => ({
            id: s.id,
            provider: s.provider,
            cwd: s.cwd,
            workspaceId: w.id,
            archived: false,
            stored: false,
            atAgent: true,
            live: false,
            state: 'stored' as const,
            needsAttention: false,
            ...(s.title ? { title: s.title } : {}),
          }));
          return {
            sessions: [...rows.map((x) => hub.summary(x)), ...extra],
            ...(agentProblem ? { agentProblem } : {}),
          };
        }
      } else rows = harness.sessions.list(filter);
      const sessions = rows.map((x) => hub.summary(x));
      return { sessions: query.fleet === 'true' && fleet ? withFleet(sessions, fleet) : sessions };
    },

    async createSession({ params, body }) {
      const w = harness.workspaces.get(params.id);
      if (!w)
        throw new HttpError(
          'not_found',
          `no workspace ${params.id}`,
          'Open the folder first: POST /api/workspaces {path}.',
        );
      existingDir(w.path, 'the workspace');
      const b = body;
      const hs = await newSessionAt(harness, w.path, b);
      if (b.model) await hs.setModel(b.model);
      if (b.mode) await hs.setMode(b.mode);
      ops.attach(hs);
      return snap(hs.id);
    },

    snapshot: ({ params }) => anySnap(params.id),

    async openSession({ params, body }) {
      const { workspace, ...b } = body;
      const stored = harness.sessions.find(params.id);
      // Live on its owner: nothing to open here.
      if (stored && remote(stored.id)) return anySnap(stored.id);
      const ls = stored
        ? await ops.live(stored.id, b)
        : await ops.adopt(params.id, { ...b, ...(workspace ? { workspace } : {}) });
      return snap(ls.hs.id);
    },

    async prompt({ params, body }) {
      const b = body;
      const r = remote(params.id);
      if (r) return forwardPrompt(r, b);
      const ls = await ops.live(params.id);
      return sendPrompt(ls.hs, b.text, b.images);
    },

    queue({ params }) {
      return queueOf(hub.get(ops.row(params.id).id)?.hs);
    },

    editQueued({ params, body }) {
      const ls = hub.get(ops.row(params.id).id);
      if (!ls) throw new HttpError('not_found', `no queued prompt ${params.item}`);
      ls.hs.session.editQueued(params.item, body.text);
      return queueOf(ls.hs);
    },

    removeQueued({ params }) {
      const ls = hub.get(ops.row(params.id).id);
      if (!ls) throw new HttpError('not_found', `no queued prompt ${params.item}`);
      ls.hs.session.removeQueued(params.item);
      return queueOf(ls.hs);
    },

    async cancel({ params }) {
      const r = remote(params.id);
      if (r) {
        await r.forward.cancel(r.owner, r.id);
        return { cancelled: true };
      }
      const ls = hub.get(ops.row(params.id).id);
      if (!ls) return { cancelled: false };
      // The session's cancel drops its queue too (one `queue.updated`).
      const hadQueue = ls.hs.session.queue.length > 0;
      const running = ls.hs.session.running !== null;
      await ls.hs.cancel();
      return { cancelled: running || hadQueue };
    },

    setModel: ({ params, body }) => choose(params.id, 'model', body.modelId),

    setMode: ({ params, body }) => choose(params.id, 'mode', body.modeId),

    async permissions({ params }) {
      const r = remote(params.id);
      if (r) return { pending: (await r.forward.snapshot(r.owner, r.id)).pending };
      const ls = hub.get(ops.row(params.id).id);
      return { pending: ls ? [...ls.pending.values()] : [] };
    },

    async answerPermission({ params, body, identity }) {
      const key = params.requestKey;
      const there = remote(params.id);
      if (there) return forwardAnswer(there, key, body, who(identity));
      const ls = hub.get(ops.row(params.id).id);
      if (!ls) throw new HttpError('not_found', `no pending permission ${key}`);
      const done = ls.resolved.get(key);
      if (done !== undefined)
        throw new HttpError('conflict', `already answered by ${done}`, undefined, { answeredBy: done });
      const b = 'optionId' in body ? body : undefined;
      const answer = b ? { optionId: b.optionId } : { choice: 'reject_once' as const };
      const by = who(identity);
      const r = ls.hs.session.answerPermission(key, answer, by) as { ok: boolean; reason?: string };
      if (!r.ok) {
        const later = ls.resolved.get(key);
        if (r.reason === 'already_answered' || later !== undefined)
          throw new HttpError('conflict', `already answered by ${later ?? 'someone else'}`, undefined, {
            answeredBy: later,
          });
        if (r.reason === 'not_offered')
          throw new HttpError(
            'invalid_argument',
            `option ${b?.optionId} was not offered`,
            "Answer with one of the request's options.",
          );
        throw new HttpError('not_found', `no pending permission ${key}`);
      }
      if (b?.rule) {
        // The person's edited rule: live for this session now, stored for when it is reopened.
        const rule: PermissionRule = { ...b.rule, source: 'user' };
        ls.hs.session.rules.push(rule);
        harness.permissions.add({ scope: 'session', scopeId: ls.hs.id, rule: { ...rule } });
      }
      return { answeredBy: by };
    },

    archive({ params, body }) {
      const row = ops.row(params.id);
      const next = body.archived ? harness.sessions.archive(row.id) : harness.sessions.unarchive(row.id);
      hub.sessionChanged(row.id);
      return { session: hub.summary(next) };
    },

    async fork({ params }) {
      const row = ops.row(params.id);
      const hs = await ops.workspaceOf(row).forkSession(row.id);
      ops.attach(hs);
      return snap(hs.id);
    },

    branches({ params }) {
      const row = ops.row(params.id);
      return { current: row.id, tree: harness.sessions.branches(row.id) };
    },

    async createBranch({ params, body }) {
      const row = ops.row(params.id);
      const b = body;
      if (b.provider && !harness.registry.has(b.provider))
        throw new HttpError('invalid_argument', `no agent "${b.provider}"`, 'GET /api/providers lists them.');
      // The branch is cut from the stored thread: commit what the live session holds first.
      hub.get(row.id)?.hs.flush();
      const at =
        b.at ?? (b.back !== undefined ? userMessageBack(harness.sessions.snapshot(row.id), b.back, row.id) : undefined);
      const hs = await ops.workspaceOf(row).branchSession(row.id, {
        ...(at !== undefined ? { at } : {}),
        ...(b.provider ? { provider: b.provider } : {}),
        ...(b.profile ? { profile: b.profile } : {}),
      });
      const ls = ops.attach(hs);
      hub.sessionChanged(row.id);
      // The snapshot before the edited message goes out on the new branch (edit → resend): a
      // subscriber `since` its seq gets the whole first turn.
      const out = snap(hs.id);
      const sent = b.text !== undefined ? sendPrompt(ls.hs, b.text, []) : undefined;
      return { ...out, ...(sent ? { turnId: sent.id } : {}) };
    },

    async steer({ params, body }) {
      const r = remote(params.id);
      if (r) return r.forward.steer(r.owner, r.id, body);
      const ls = await ops.live(params.id);
      return steerNow(ls.hs, body);
    },

    async exportSession({ params, query, c }) {
      const row = ops.row(params.id);
      const format = query.format;
      hub.get(row.id)?.hs.flush();
      const text = await harness.sessions.export(row.id, format);
      const ext = format === 'fixture' ? 'ndjson' : format;
      const type =
        format === 'md'
          ? 'text/markdown; charset=utf-8'
          : format === 'json'
            ? 'application/json'
            : 'application/x-ndjson';
      return c.body(text, 200, {
        'content-type': type,
        'content-disposition': `attachment; filename="talaria-${row.id.slice(0, 8)}.${ext}"`,
      });
    },

    async importSession({ body }) {
      const b = body;
      if (b.cwd) existingDir(b.cwd, 'cwd');
      const row = await harness.sessions.import(b.text, {
        ...(b.provider ? { provider: b.provider } : {}),
        ...(b.cwd ? { cwd: b.cwd } : {}),
        ...(b.title ? { title: b.title } : {}),
      });
      hub.sessionChanged(row.id);
      return { session: hub.summary(row) };
    },

    wireLog({ params, query }) {
      const row = ops.row(params.id);
      hub.get(row.id)?.hs.flush();
      const limit = query.limit ?? 500;
      const after = query.after ?? 0;
      const rows = harness.sessions.wireRows(row.id, { fromSeq: after + 1, limit });
      const problems = checked.upTo(row.id, rows.at(-1)?.seq ?? 0);
      const frames = rows.map((r) => {
        let msg: unknown;
        try {
          msg = JSON.parse(r.msg);
        } catch {
          msg = r.msg;
        }
        const problem = problems.get(r.seq);
        return { seq: r.seq, at: r.t_ms, dir: r.dir, msg, ...(problem ? { problem } : {}) };
      });
      const last = rows.at(-1);
      return { frames, ...(rows.length === limit && last ? { next: last.seq } : {}) };
    },
  };
}
