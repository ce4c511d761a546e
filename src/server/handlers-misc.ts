/** Route handlers outside sessions: health, me, readiness, providers, workspaces, models, rules, audit, usage. */
import { groupUsage, sessionUsage, type Harness, type AgentStatus, type UsageBy } from '../harness/index.js';
import { addCosts } from '../providers/hermes/state-db.js';
import type { HandlerMap } from './app.js';
import type { ProviderInfo } from './contract/index.js';
import type { Hub } from './hub.js';
import { HttpError } from './http-error.js';
import { providerInfo } from './provider-info.js';
import type { Provider } from '../providers/types.js';
import { existingDir, workspaceInfo } from './session-ops.js';

/** A checked agent as ProviderInfo (its status says who it is). */
const providerOf = (s: AgentStatus, p: Provider | undefined): ProviderInfo =>
  providerInfo({ id: s.providerId, label: s.label, source: s.source }, s, p);

export function miscHandlers(
  harness: Harness,
  hub: Hub,
  o: { version: string; startedAt: number; signIns?: () => number },
): Partial<HandlerMap> {
  let readiness: Promise<AgentStatus[]> | undefined;
  let seen = o.signIns?.();
  const statuses = (refresh: boolean) => {
    // A sign-in since the last check makes the cached answer stale.
    if (!readiness || refresh || o.signIns?.() !== seen) {
      seen = o.signIns?.();
      readiness = harness.agents();
      readiness.catch(() => (readiness = undefined));
    }
    return readiness;
  };
  const catalogs = new Map<string, unknown>();

  return {
    health: () => ({ ok: true, name: 'talaria', version: o.version, uptimeMs: Date.now() - o.startedAt }),
    me: ({ identity }) => ({
      role: identity!.role,
      tokenId: identity!.id,
      ...(identity!.label ? { label: identity!.label } : {}),
    }),
    async readiness({ query }) {
      const all = await statuses(query.refresh === 'true');
      return {
        providers: all.map((s) => providerOf(s, harness.registry.get(s.providerId))),
        problems: harness.configProblems,
      };
    },
    async providers() {
      const known = await Promise.race([
        statuses(false).catch(() => undefined),
        new Promise<undefined>((r) => setTimeout(r, 50, undefined).unref()),
      ]);
      const byId = new Map((known ?? []).map((s) => [s.providerId, s]));
      const providers = harness.registry.list().map((p) => {
        const s = byId.get(p.id);
        return s
          ? providerOf(s, p)
          : providerInfo({ id: p.id, label: p.label, source: String(p.source) }, undefined, p);
      });
      return { providers, ...(harness.config.defaultProvider ? { default: harness.config.defaultProvider } : {}) };
    },
    workspaces: () => ({ workspaces: harness.workspaces.list().map(workspaceInfo) }),
    openWorkspace({ body }) {
      const path = existingDir(body.path, 'the workspace');
      const ws = harness.workspaces.open(path);
      return { workspace: workspaceInfo(ws.row) };
    },
    bindProvider({ params, body }) {
      const b = body;
      if (b.provider === '') {
        // No binding: new sessions here get the configured default if it is ready, else the best ready agent.
        const cleared = harness.workspaces.update(params.id, { defaultProvider: null, profile: null });
        if (!cleared) throw new HttpError('not_found', `no workspace ${params.id}`);
        return { workspace: workspaceInfo(cleared) };
      }
      if (!harness.registry.has(b.provider))
        throw new HttpError('invalid_argument', `no agent "${b.provider}"`, 'GET /api/providers lists them.');
      const w = harness.workspaces.update(params.id, { defaultProvider: b.provider, profile: b.profile ?? null });
      if (!w) throw new HttpError('not_found', `no workspace ${params.id}`);
      const ws = harness.workspaces.open(w.path);
      const p = { provider: b.provider, ...(b.profile ? { profile: b.profile } : {}) };
      if (b.model) ws.setDefault({ ...p, kind: 'model', id: b.model });
      if (b.mode) ws.setDefault({ ...p, kind: 'mode', id: b.mode });
      return { workspace: workspaceInfo(w) };
    },
    async workspaceModels({ params, query }) {
      const w = harness.workspaces.get(params.id);
      if (!w) throw new HttpError('not_found', `no workspace ${params.id}`);
      const pick = query.provider
        ? { provider: query.provider, from: 'flag' }
        : await harness.pickAgent({ workspace: w.path });
      // The workspace's own profile before its first session made it: the profile it is cloned from.
      const set = harness.profileFor(w.id, pick.provider);
      const profile = query.profile ?? (set?.own && !set.exists ? undefined : set?.profile);
      const key = `${w.id}\u0000${pick.provider}\u0000${profile ?? ''}`;
      const ws = harness.workspaces.open(w.path);
      const d = ws.defaults(pick.provider, profile);
      const defaults = { ...(d.modelId ? { modelId: d.modelId } : {}), ...(d.modeId ? { modeId: d.modeId } : {}) };
      // A live session of that agent here already knows the catalog.
      for (const ls of hub.live.values()) {
        if (
          ls.hs.workspace === w.path &&
          ls.hs.provider === pick.provider &&
          ls.hs.profile === profile &&
          ls.hs.session.state !== 'closed'
        ) {
          catalogs.set(key, ls.hs.session.catalog);
          return { provider: pick.provider, catalog: ls.hs.session.catalog, cached: false, defaults };
        }
      }
      if (catalogs.has(key) && query.refresh !== 'true')
        return { provider: pick.provider, catalog: catalogs.get(key), cached: true, defaults };
      // No other way: a throwaway session/new (not recorded; zero-history sessions do not show in session/list).
      const s = await harness.host.newSession({
        provider: pick.provider,
        workspace: w.path,
        ...(profile ? { profile } : {}),
      });
      const catalog = s.catalog;
      await harness.host.closeSession(s, 'model catalog read').catch(() => undefined);
      catalogs.set(key, catalog);
      return { provider: pick.provider, catalog, cached: false, defaults };
    },
    rules({ query }) {
      const scope = query.scope;
      return { rules: harness.permissions.list(scope, query.scopeId) };
    },
    addRule({ body }) {
      const b = body;
      const scopeId = b.scope === 'global' ? undefined : b.scopeId;
      if (b.scope !== 'global' && !scopeId) throw new HttpError('invalid_argument', `a ${b.scope} rule needs scopeId`);
      if (b.scope === 'workspace' && !harness.workspaces.get(scopeId ?? ''))
        throw new HttpError('not_found', `no workspace ${scopeId}`);
      if (b.scope === 'session' && !harness.sessions.find(scopeId ?? ''))
        throw new HttpError('not_found', `no session ${scopeId}`);
      const rule = harness.permissions.add({
        scope: b.scope,
        ...(scopeId !== undefined ? { scopeId } : {}),
        rule: { ...b.rule, source: b.rule.source ?? 'user' },
      });
      return { rule };
    },
    updateRule({ params, body }) {
      const rule = harness.permissions.replace(Number(params.id), { ...body.rule });
      if (!rule) throw new HttpError('not_found', `no rule ${params.id}`);
      return { rule };
    },
    deleteRule({ params }) {
      if (!harness.permissions.remove(Number(params.id))) throw new HttpError('not_found', `no rule ${params.id}`);
      return { ok: true };
    },
    audit({ query }) {
      const session = query.session;
      const id = session ? harness.sessions.find(session)?.id : undefined;
      if (session && !id) throw new HttpError('not_found', `no session ${session}`);
      const all = harness.permissions.audit(id);
      const limit = query.limit ?? 200;
      return { records: all.slice(-limit) };
    },
    usage({ query }) {
      const by: UsageBy = query.by ?? 'agent';
      const rows = query.session
        ? [harness.sessions.find(query.session)].filter((r) => r !== undefined)
        : harness.sessions.list({ includeArchived: true });
      if (query.session && rows.length === 0) throw new HttpError('not_found', `no session ${query.session}`);
      const report = sessionUsage(harness.store, harness.env, rows);
      const groups = groupUsage(report.sessions, by);
      const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 0 };
      for (const g of groups)
        for (const k of Object.keys(tokens) as Array<keyof typeof tokens>) tokens[k] += g.tokens[k];
      const total = { sessions: report.sessions.length, tokens, cost: addCosts(report.sessions.map((s) => s.cost)) };
      return { by, groups, total, sessions: report.sessions, problems: report.problems };
    },
  };
}
