/** The ACP Registry list and its add / update / remove (contract/registry.ts), with fetch and the contract's schemas (the typed client covers ROUTES only). */
import { REGISTRY_ROUTES, type RegistryAgentInfo } from '../../../src/server/contract/index.js';

export type { RegistryAgentInfo };
export type RegistryIndexInfo = ReturnType<typeof REGISTRY_ROUTES.registryIndex.response.parse>;
export type RegistryAddInfo = ReturnType<typeof REGISTRY_ROUTES.registryAdd.response.parse>;

/** A failed call as an Error carrying the server's `fix`. */
async function call(path: string, init: RequestInit = {}): Promise<unknown> {
  const r = await fetch(path, init);
  const body = (await r.json().catch(() => ({}))) as { message?: string; fix?: string };
  if (!r.ok) throw Object.assign(new Error(body.message ?? `the registry call failed (${r.status})`), { fix: body.fix, status: r.status });
  return body;
}

export async function readRegistry(): Promise<RegistryIndexInfo> {
  return REGISTRY_ROUTES.registryIndex.response.parse(await call('/api/registry'));
}

export async function addRegistryAgent(spec: string): Promise<RegistryAddInfo> {
  const body = await call('/api/registry/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ spec }) });
  return REGISTRY_ROUTES.registryAdd.response.parse(body);
}

export async function updateRegistryAgent(id: string): Promise<ReturnType<typeof REGISTRY_ROUTES.registryUpdate.response.parse>> {
  return REGISTRY_ROUTES.registryUpdate.response.parse(await call(`/api/registry/agents/${encodeURIComponent(id)}/update`, { method: 'POST' }));
}

export async function removeRegistryAgent(id: string): Promise<ReturnType<typeof REGISTRY_ROUTES.registryRemove.response.parse>> {
  return REGISTRY_ROUTES.registryRemove.response.parse(await call(`/api/registry/agents/${encodeURIComponent(id)}`, { method: 'DELETE' }));
}
