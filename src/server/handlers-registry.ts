/** The registry list route (contract/registry.ts): the index as `talaria agents search` reads it, with the installed versions. */
import type { Harness } from '../harness/index.js';
import { currentInstalls, DEFAULT_REGISTRY_URL, fetchIndex, RegistryError } from '../providers/index.js';
import type { Handler } from './app.js';
import { HttpError } from './http-error.js';

export function registryHandlers(harness: Harness): { registryIndex: Handler } {
  return {
    async registryIndex({ query }) {
      const url = (harness.env.env as Record<string, string | undefined>).TALARIA_REGISTRY_URL || DEFAULT_REGISTRY_URL;
      let res;
      try {
        res = await fetchIndex({ home: harness.home, url, offline: query.offline === 'true' });
      } catch (e) {
        if (e instanceof RegistryError) throw new HttpError('not_ready', e.message, 'Check the network, or set TALARIA_REGISTRY_URL.');
        throw e;
      }
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
        })),
      };
    },
  };
}
