import { z } from 'zod';
import { providerInfo } from './models.js';
import { ROUTE_TABLE } from './wire.js';

/**
 * The ACP Registry as the readiness page shows it (issue 13): the index (cached under
 * $TALARIA_HOME with its ETag; offline, the cache and its age) with what is installed here.
 */
export const registryAgentInfo = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string(),
  license: z.string().optional(),
  icon: z.string().optional(),
  website: z.string().optional(),
  /** The version installed here, when it is. */
  installed: z.string().optional(),
  /** The npm package of its npx distribution (no version): the Agents page matches a built-in agent's install by it. */
  package: z.string().optional(),
});
export type RegistryAgentInfo = z.infer<typeof registryAgentInfo>;

/** Where the index an install used came from: a cached copy (the network down) says how old it is. */
const indexSource = z.object({
  url: z.string(),
  from: z.enum(['network', 'not-modified', 'cache']),
  ageMs: z.number(),
  note: z.string().optional(),
});

/** An installed agent as the install routes answer it (the manifest's public part). */
export const installedAgentInfo = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  kind: z.enum(['npx', 'uvx', 'binary']),
  source: z.string(),
  preview: z.boolean(),
  /** npm: the built-in agent of this id, installed from its own npm package (it stays that agent). */
  origin: z.literal('npm').optional(),
});

const agentId = z.object({ id: z.string().min(1) });

export const REGISTRY_ROUTES = {
  registryIndex: {
    ...ROUTE_TABLE.registryIndex,
    query: z.object({ offline: z.enum(['true', 'false']).optional() }),
    response: z.object({
      url: z.string(),
      /** network: a new copy; not-modified: the cache confirmed (304); cache: the network failed or was not asked. */
      from: z.enum(['network', 'not-modified', 'cache']),
      ageMs: z.number(),
      note: z.string().optional(),
      problems: z.array(z.string()),
      agents: z.array(registryAgentInfo),
    }),
  },
  /**
   * Installs `ID` or `ID@VERSION` (as `talaria agents add`); the running server's agents gain it at
   * once. 409 while the same agent is being installed, updated or removed; the answer carries
   * its readiness checked (a uvx agent without uv: the gap and its fix).
   */
  registryAdd: {
    ...ROUTE_TABLE.registryAdd,
    body: z.object({ spec: z.string().min(1).max(300), preview: z.boolean().optional() }),
    /** index: absent when a built-in installed from npm without the registry (unreachable, or not needed). */
    response: z.object({ installed: installedAgentInfo, provider: providerInfo, index: indexSource.optional() }),
  },
  /** Moves an installed agent to the index's latest version on its channel (as `talaria agents update ID`). */
  registryUpdate: {
    ...ROUTE_TABLE.registryUpdate,
    params: agentId,
    response: z.object({
      id: z.string(),
      from: z.string(),
      status: z.enum(['updated', 'up-to-date', 'not-in-registry']),
      to: z.string().optional(),
      provider: providerInfo.optional(),
      index: indexSource,
    }),
  },
  /** Removes every installed version (as `talaria agents remove ID`); the agent leaves the running server's list. */
  registryRemove: {
    ...ROUTE_TABLE.registryRemove,
    params: agentId,
    /** openSessions: sessions still open on the removed agent's running process (they end when closed; no new one starts). */
    response: z.object({ id: z.string(), removed: z.array(z.string()), openSessions: z.number().int() }),
  },
} as const;
