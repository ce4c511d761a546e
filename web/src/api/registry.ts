/** The ACP Registry list (contract/registry.ts), read with fetch and the contract's schema (the typed client covers ROUTES only). */
import { REGISTRY_ROUTES, type RegistryAgentInfo } from '../../../src/server/contract/index.js';

export type { RegistryAgentInfo };
export type RegistryIndexInfo = ReturnType<typeof REGISTRY_ROUTES.registryIndex.response.parse>;

export async function readRegistry(): Promise<RegistryIndexInfo> {
  const r = await fetch('/api/registry');
  const body: unknown = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((body as { message?: string }).message ?? `the registry could not be read (${r.status})`);
  return REGISTRY_ROUTES.registryIndex.response.parse(body);
}
