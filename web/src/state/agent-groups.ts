import type { ProviderInfo } from '../api/server.js';
import type { RegistryAgentInfo } from '../api/registry.js';

export type AgentGroup = 'ready' | 'checking' | 'sign-in' | 'install' | 'configure';

/** Group headings, in the order the Agents page shows them: ready agents first. */
export const GROUPS: { id: AgentGroup; title: string }[] = [
  { id: 'ready', title: 'Ready' },
  { id: 'checking', title: 'Being checked' },
  { id: 'sign-in', title: 'Needs sign-in' },
  { id: 'install', title: 'Needs install' },
  { id: 'configure', title: 'Needs configuration' },
];

const INSTALL_CODES = new Set(['not_installed', 'not_executable']);

/** What an agent needs first: an install before a sign-in (a missing agent cannot sign in), the rest is configuration. */
export function groupOf(p: ProviderInfo): AgentGroup {
  if (p.ready === undefined) return 'checking';
  if (p.ready) return 'ready';
  if (p.gaps.some((g) => g.code !== undefined && INSTALL_CODES.has(g.code))) return 'install';
  if (p.gaps.some((g) => g.code === 'auth')) return 'sign-in';
  return 'configure';
}

/**
 * The ACP Registry entry that installs this agent: the same id (an install replaces the built-in
 * of that id). A built-in with an npm package and no entry of its id installs from npm instead
 * (ProviderInfo.npmPackage), at the version the registry pins for that package when it lists one.
 */
export function registryEntryFor(
  p: ProviderInfo,
  agents: readonly RegistryAgentInfo[] | undefined,
): RegistryAgentInfo | undefined {
  return agents?.find((a) => a.id === p.id);
}

/**
 * The Needs install group on a machine with few agents is most of the page: what installs with one
 * click (and Hermes, the first-class agent) stays in view; the agents installed by hand fold away
 * when there are several of them. `keep`: an agent the page was asked to show is never folded.
 */
export function foldInstallGroup(
  members: readonly ProviderInfo[],
  oneClick: (p: ProviderInfo) => boolean,
  keep?: string | null,
): { shown: ProviderInfo[]; folded: ProviderInfo[] } {
  const shown = members.filter((p) => oneClick(p) || p.id === 'hermes' || p.id === keep);
  const folded = members.filter((p) => !shown.includes(p));
  return members.length <= 4 || folded.length < 2 ? { shown: [...members], folded: [] } : { shown, folded };
}
