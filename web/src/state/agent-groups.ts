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
 * of that id), or one whose npm package is the one the agent's install text names.
 */
export function registryEntryFor(p: ProviderInfo, agents: readonly RegistryAgentInfo[] | undefined): RegistryAgentInfo | undefined {
  if (!agents) return undefined;
  const same = agents.find((a) => a.id === p.id);
  if (same) return same;
  const fix = p.gaps.find((g) => g.code === 'not_installed')?.fix ?? '';
  const pkgs = [...fix.matchAll(/npm install -g ([^`]+)`/g)].flatMap((m) => m[1]!.trim().split(/\s+/));
  // Only an agent that is one package: pi needs two, which one registry entry does not install.
  return pkgs.length === 1 ? agents.find((a) => a.package === pkgs[0]) : undefined;
}
