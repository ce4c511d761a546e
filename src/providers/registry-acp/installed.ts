/**
 * What is installed from the registry: one folder per agent version under
 * $TALARIA_HOME/agents/<id>@<version>, each with a talaria-agent.json manifest saying how to
 * start it. The manifest is written last, so a folder without one is an unfinished install and
 * is ignored (and replaced by the next add).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const MANIFEST = 'talaria-agent.json';

const manifestSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  kind: z.enum(['npx', 'uvx', 'binary']),
  /** Absolute path for npx and binary; `uvx` for uvx (found on PATH at run time). */
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** The npm or PyPI package spec, or the archive URL. */
  source: z.string(),
  preview: z.boolean(),
  installedAt: z.number(),
  /** npm: a built-in agent's own npm package (npm-builtin.ts), which runs as that built-in; absent: a registry entry. */
  origin: z.literal('npm').optional(),
});

export type InstalledAgent = z.infer<typeof manifestSchema> & { dir: string };

export function agentsDir(home: string): string {
  return join(home, 'agents');
}

export function installDir(home: string, id: string, version: string): string {
  return join(agentsDir(home), `${id}@${version}`);
}

/** Every complete install, newest version of each id last (by install time). */
export function listInstalled(home: string): { agents: InstalledAgent[]; problems: string[] } {
  const root = agentsDir(home);
  const agents: InstalledAgent[] = [];
  const problems: string[] = [];
  if (!existsSync(root)) return { agents, problems };
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    const file = join(dir, MANIFEST);
    if (name.includes('.partial-') || !existsSync(file)) continue;
    try {
      const m = manifestSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      agents.push({ ...m, dir });
    } catch (e) {
      problems.push(
        `installed agent ${name} skipped: unreadable ${MANIFEST} (${(e as Error).message.split('\n')[0]}); remove it with \`talaria agents remove ${name.split('@')[0]}\``,
      );
    }
  }
  agents.sort((a, b) => a.installedAt - b.installedAt);
  return { agents, problems };
}

/** The install used for an id: the most recently installed version. */
export function currentInstalls(home: string): { agents: InstalledAgent[]; problems: string[] } {
  const { agents, problems } = listInstalled(home);
  const byId = new Map<string, InstalledAgent>();
  for (const a of agents) byId.set(a.id, a);
  return { agents: [...byId.values()], problems };
}

/** Removes every installed version of `id`; returns the versions removed. */
export function removeInstalled(home: string, id: string): string[] {
  const root = agentsDir(home);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    if (name.startsWith(`${id}@`)) {
      rmSync(join(root, name), { recursive: true, force: true });
      if (!name.includes('.partial-')) removed.push(name.slice(id.length + 1));
    }
  }
  return removed;
}

export function manifestJson(m: Omit<InstalledAgent, 'dir'>): string {
  return JSON.stringify(manifestSchema.parse(m), null, 2) + '\n';
}
