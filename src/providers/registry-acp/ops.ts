/**
 * The registry operations the CLI (`talaria agents add|update`) and the server's registry routes
 * share: which entry and channel an `ID[@VERSION]` names, and an update that keeps the old
 * version until the new one is in place.
 */
import { rmSync } from 'node:fs';
import type { ProviderEnv } from '../types.js';
import { RegistryError } from './errors.js';
import type { IndexResult } from './index-client.js';
import type { Provider } from '../types.js';
import { installAgent, splitPackageSpec } from './install.js';
import { listInstalled, type InstalledAgent } from './installed.js';
import { installFromNpm, npmLatest } from './npm-builtin.js';
import type { AgentEntry } from './schema.js';

type NpmAgent = Pick<Provider, 'id' | 'label' | 'npm'>;

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

/** The version the registry pins for an npm package (an entry that installs it), if it has one. */
function registryPin(res: IndexResult | undefined, pkg: string): string | undefined {
  for (const a of res?.index.agents ?? []) {
    const npx = a.distribution.npx;
    if (npx && splitPackageSpec(npx.package).name === pkg) return splitPackageSpec(npx.package).version ?? a.version;
  }
  return undefined;
}

/**
 * `talaria agents add ID[@VERSION]` and the Agents page's Install: the registry's entry of that id
 * (it replaces a built-in of the id), else the built-in's own npm package (it stays the built-in)
 * at the version asked, else the one the registry pins for that package, else npm's latest. The
 * index is only needed for the first two; without it a built-in still installs from npm.
 */
export async function addAgent(
  spec: string,
  o: {
    home: string;
    ctx: ProviderEnv;
    preview?: boolean;
    index: () => Promise<IndexResult>;
    builtin: (id: string) => NpmAgent | undefined;
  },
): Promise<InstalledAgent> {
  const at = spec.indexOf('@');
  const id = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  const b = o.builtin(id);
  let res: IndexResult | undefined;
  try {
    res = await o.index();
  } catch (e) {
    if (!b?.npm) throw e;
  }
  if (!b?.npm || res?.index.agents.some((a) => a.id === id)) {
    const { entry, preview } = pickEntry(res!, spec, o.preview);
    return installAgent(entry, { home: o.home, ctx: o.ctx, preview });
  }
  const pinned = version ?? registryPin(res, b.npm.package);
  return installFromNpm(b, { home: o.home, ctx: o.ctx, ...(pinned ? { version: pinned } : {}) });
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
  if (a.origin === 'npm') return updateFromNpm(a, res, o);
  const entry = res.index.agents.find((e) => e.id === a.id);
  if (!entry) return { id: a.id, from: a.version, status: 'not-in-registry' };
  if (latestFor(a, entry) === a.version) return { id: a.id, from: a.version, status: 'up-to-date' };
  const next = await installAgent(entry, {
    home: o.home,
    ctx: o.ctx,
    preview: a.preview && entry.preview !== undefined,
  });
  removeOthers(o.home, a.id, next.version);
  return { id: a.id, from: a.version, status: 'updated', to: next.version };
}

/** A built-in installed from npm follows the registry's pin for its package, else npm's latest. */
async function updateFromNpm(
  a: InstalledAgent,
  res: IndexResult,
  o: { home: string; ctx: ProviderEnv },
): Promise<UpdateResult> {
  const pkg = splitPackageSpec(a.source).name;
  const to = registryPin(res, pkg) ?? (await npmLatest(pkg, { ctx: o.ctx }));
  if (to === a.version) return { id: a.id, from: a.version, status: 'up-to-date' };
  const bin = a.command.slice(a.command.lastIndexOf('/') + 1);
  const next = await installFromNpm({ id: a.id, label: a.name, npm: { package: pkg, bin } }, { ...o, version: to });
  removeOthers(o.home, a.id, next.version);
  return { id: a.id, from: a.version, status: 'updated', to: next.version };
}

/** The new version is in place before the old ones go: a failed update leaves the old one working. */
function removeOthers(home: string, id: string, keep: string): void {
  for (const old of listInstalled(home).agents)
    if (old.id === id && old.version !== keep) rmSync(old.dir, { recursive: true, force: true });
}
