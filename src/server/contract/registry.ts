import { z } from 'zod';
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
});
export type RegistryAgentInfo = z.infer<typeof registryAgentInfo>;

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
} as const;
