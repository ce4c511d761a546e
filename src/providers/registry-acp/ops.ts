/**
 * The registry operations the CLI (`talaria agents add|update`) and the server's registry routes
 * share: which entry and channel an `ID[@VERSION]` names, and an update that keeps the old
 * version until the new one is in place.
 */
import { rmSync } from 'node:fs';
import type { ProviderEnv } from '../types.js';
import { RegistryError } from './errors.js';
import type { IndexResult } from './index-client.js';
import { installAgent } from './install.js';
import { listInstalled, type InstalledAgent } from './installed.js';
import type { AgentEntry } from './schema.js';

/** `ID` or `ID@VERSION` (the release or the preview of the index; `@preview` = the preview). */
export function pickEntry(
  res: IndexResult,
  spec: string,
  wantPreview = false,
): { entry: AgentEntry; preview: boolean } {
  const at = spec.indexOf('@');
  const id = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  const entry = res.index.agents.find((a) => a.id === id);
  if (!entry)
    throw new RegistryError('agent_unknown', `no agent "${id}" in the registry (talaria agents search lists them)`, {
      id,
    });
  if (version === undefined || version === entry.version) {
    if (wantPreview && version === undefined) return { entry, preview: true };
    return { entry, preview: false };
  }
  if (entry.preview && (version === entry.preview.version || version === 'preview')) return { entry, preview: true };
  const offered = entry.preview ? `${entry.version} (preview ${entry.preview.version})` : entry.version;
  throw new RegistryError('agent_unknown', `the registry offers ${id} ${offered}, not ${version}`, { id });
}

/** The version an install would move to: a preview install follows the preview channel, a release install stays on releases. */
export function latestFor(a: Pick<InstalledAgent, 'preview'>, entry: AgentEntry): string {
  return a.preview && entry.preview ? entry.preview.version : entry.version;
}

export type UpdateResult =
  | { id: string; from: string; status: 'updated'; to: string }
  | { id: string; from: string; status: 'up-to-date' | 'not-in-registry' };

/** Moves one installed agent to the index's latest version on its channel. */
export async function updateInstalled(
  a: InstalledAgent,
  res: IndexResult,
  o: { home: string; ctx: ProviderEnv },
): Promise<UpdateResult> {
  const entry = res.index.agents.find((e) => e.id === a.id);
  if (!entry) return { id: a.id, from: a.version, status: 'not-in-registry' };
  if (latestFor(a, entry) === a.version) return { id: a.id, from: a.version, status: 'up-to-date' };
  const next = await installAgent(entry, {
    home: o.home,
    ctx: o.ctx,
    preview: a.preview && entry.preview !== undefined,
  });
  // The new version is in place before the old one goes: a failed update leaves the old one working.
  for (const old of listInstalled(o.home).agents)
    if (old.id === a.id && old.version !== next.version) rmSync(old.dir, { recursive: true, force: true });
  return { id: a.id, from: a.version, status: 'updated', to: next.version };
}
