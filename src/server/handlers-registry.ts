/**
 * The registry routes (contract/registry.ts): the index as `talaria agents search` reads it, with
 * the installed versions; and add / update / remove with the CLI's own code, after which the
 * running server's provider registry is read again (the agent appears or goes without a restart).
 */
import type { Harness } from '../harness/index.js';
import {
  currentInstalls,
  DEFAULT_REGISTRY_URL,
  fetchIndex,
  formatAge,
  addAgent,
  builtinProviders,
  refreshInstalled,
  removeInstalled,
  RegistryError,
  splitPackageSpec,
  updateInstalled,
  type IndexResult,
  type InstalledAgent,
} from '../providers/index.js';
import type { HandlerMap } from './app.js';
import { signInInfo } from './provider-info.js';
import { HttpError } from './http-error.js';

const READINESS_MS = 30_000;

/** A registry error as the page shows it: what happened and what to do. */
function httpOf(e: RegistryError): HttpError {
  const data = { registryCode: e.code };
  switch (e.code) {
    case 'agent_unknown':
    case 'not_installed':
      return new HttpError(
        'not_found',
        e.message,
        'The registry list on this page shows what can be added and what is installed.',
        data,
      );
    case 'no_distribution':
      return new HttpError('invalid_argument', e.message, 'Pick another agent, or another version.', data);
    case 'checksum_mismatch':
      return new HttpError(
        'agent_error',
        e.message,
        'The download is not what the registry published: try again later, or tell the registry maintainers.',
        data,
      );
    case 'registry_unreachable':
    case 'registry_invalid':
      return new HttpError('not_ready', e.message, 'Check the network, or set TALARIA_REGISTRY_URL.', data);
    default:
      return new HttpError(
        'agent_error',
        e.message,
        'Check the network and the npm registry settings (npm config), then try again.',
        data,
      );
  }
}

export function registryHandlers(
  harness: Harness,
  o: { onChanged?: () => void } = {},
): HandlerMap<'registryIndex' | 'registryAdd' | 'registryUpdate' | 'registryRemove'> {
  const url = () =>
    (harness.env.env as Record<string, string | undefined>).TALARIA_REGISTRY_URL || DEFAULT_REGISTRY_URL;
  const index = async (offline = false): Promise<IndexResult> => {
    try {
      return await fetchIndex({ home: harness.home, url: url(), offline });
    } catch (e) {
      if (e instanceof RegistryError) throw httpOf(e);
      throw e;
    }
  };
  const source = (res: IndexResult) => ({
    url: res.url,
    from: res.from,
    ageMs: res.ageMs,
    ...(res.note ? { note: `${res.note}, ${formatAge(res.ageMs)}` } : {}),
  });
  // One change per agent at a time: a second click while an install runs is a 409, not a second install.
  const busy = new Set<string>();
  const exclusive = async <T>(id: string, what: string, fn: () => Promise<T>): Promise<T> => {
    if (busy.has(id))
      throw new HttpError(
        'conflict',
        `${id} is already being changed (${what} refused while it runs)`,
        'Wait for it to finish.',
      );
    busy.add(id);
    try {
      return await fn();
    } catch (e) {
      if (e instanceof RegistryError) throw httpOf(e);
      throw e;
    } finally {
      busy.delete(id);
    }
  };
  const changed = () => {
    refreshInstalled(harness.registry, harness.env, { home: harness.home });
    o.onChanged?.();
  };
  const readiness = async (id: string) => {
    const p = harness.registry.require(id);
    return signInInfo(p, await p.readiness(harness.env, { timeoutMs: READINESS_MS }));
  };
  const installedOf = (a: InstalledAgent) => ({
    id: a.id,
    name: a.name,
    version: a.version,
    kind: a.kind,
    source: a.source,
    preview: a.preview,
    ...(a.origin ? { origin: a.origin } : {}),
  });
  const builtins = new Map(builtinProviders().map((p) => [p.id, p]));

  return {
    async registryIndex({ query }) {
      const res = await index(query.offline === 'true');
      const installed = new Map(currentInstalls(harness.home).agents.map((a) => [a.id, a.version]));
      return {
        url: res.url,
        from: res.from,
        ageMs: res.ageMs,
        ...(res.note ? { note: res.note } : {}),
        problems: res.index.problems,
        agents: res.index.agents.map((a) => ({
          id: a.id,
          name: a.name,
          description: a.description,
          version: a.version,
          ...(a.license ? { license: a.license } : {}),
          ...(a.icon ? { icon: a.icon } : {}),
          ...(a.website ? { website: a.website } : {}),
          ...(installed.has(a.id) ? { installed: installed.get(a.id)! } : {}),
          ...(a.distribution.npx ? { package: splitPackageSpec(a.distribution.npx.package).name } : {}),
        })),
      };
    },
    async registryAdd({ body }) {
      const { spec, preview } = body;
      const id = spec.indexOf('@') > 0 ? spec.slice(0, spec.indexOf('@')) : spec;
      return exclusive(id, 'add', async () => {
        let res: IndexResult | undefined;
        const a = await addAgent(spec, {
          home: harness.home,
          ctx: harness.env,
          preview: preview === true,
          index: async () => (res ??= await index()),
          builtin: (b) => builtins.get(b),
        });
        changed();
        return {
          installed: installedOf(a),
          provider: await readiness(a.id),
          ...(res ? { index: source(res) } : {}),
        };
      });
    },
    async registryUpdate({ params }) {
      const id = params.id;
      return exclusive(id, 'update', async () => {
        const a = currentInstalls(harness.home).agents.find((x) => x.id === id);
        if (!a) throw new RegistryError('not_installed', `"${id}" is not installed from the registry`, { id });
        const res = await index();
        const u = await updateInstalled(a, res, { home: harness.home, ctx: harness.env });
        if (u.status === 'updated') changed();
        return { ...u, ...(u.status === 'updated' ? { provider: await readiness(id) } : {}), index: source(res) };
      });
    },
    async registryRemove({ params }) {
      const id = params.id;
      return exclusive(id, 'remove', async () => {
        const removed = removeInstalled(harness.home, id);
        if (removed.length === 0)
          throw new RegistryError('not_installed', `"${id}" is not installed from the registry`, { id });
        changed();
        // A process already running keeps its session: say so instead of letting it look like nothing happened.
        const openSessions = harness.host
          .agents()
          .filter((a) => a.key.provider === id && a.state !== 'stopped')
          .reduce((n, a) => n + a.sessions.length, 0);
        return Promise.resolve({ id, removed, openSessions });
      });
    },
  };
}
