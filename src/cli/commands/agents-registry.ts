/**
 * `talaria agents search|add|remove|update` and `agents --installed`: agents from the ACP
 * Registry (index URL: TALARIA_REGISTRY_URL, default the CDN), installed pinned under
 * $TALARIA_HOME/agents and then usable like any built-in (`talaria run --agent ID`).
 */
import { flag, parse, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { AGENTS_HELP } from '../help-admin.js';
import {
  currentEnv,
  currentInstalls,
  DEFAULT_REGISTRY_URL,
  addAgent,
  builtinProviders,
  fetchIndex,
  formatAge,
  removeInstalled,
  RegistryError,
  updateInstalled,
  type AgentEntry,
  type IndexResult,
  type InstalledAgent,
} from '../../providers/index.js';
import { talariaHome } from '../../os/home.js';
import type { CliContext } from './common.js';

export const REGISTRY_SUBCOMMANDS = ['search', 'add', 'remove', 'update'] as const;

const OPTIONS = { json: { type: 'boolean' }, offline: { type: 'boolean' }, preview: { type: 'boolean' } } as const;

interface Run {
  ctx: CliContext;
  home: string;
  json: boolean;
  offline: boolean;
  preview: boolean;
  args: string[];
}

export async function agentsRegistryCommand(sub: string, argv: string[], ctx: CliContext): Promise<number> {
  const p = parse(`agents ${sub}`, argv, OPTIONS);
  if (flag(p, 'help')) {
    ctx.io.stdout.write(`${AGENTS_HELP}\n`);
    return EXIT.OK;
  }
  const env = currentEnv({ env: ctx.io.env });
  const run: Run = {
    ctx,
    home: talariaHome(env),
    json: flag(p, 'json'),
    offline: flag(p, 'offline'),
    preview: flag(p, 'preview'),
    args: p.positionals,
  };
  try {
    if (sub === 'search') return await search(run);
    if (sub === 'add') return await add(run);
    if (sub === 'remove') return remove(run);
    if (sub === 'update') return await update(run);
    if (sub === 'installed') return installed(run);
    throw new UsageError(`agents: unknown command '${sub}'`);
  } catch (e) {
    if (!(e instanceof RegistryError)) throw e;
    ctx.io.stderr.write(`talaria: ${e.message}\n`);
    return e.code === 'agent_unknown' ? EXIT.USAGE : EXIT.NOT_READY;
  }
}

async function index(r: Run): Promise<IndexResult> {
  const res = await fetchIndex({
    home: r.home,
    url: r.ctx.io.env.TALARIA_REGISTRY_URL || DEFAULT_REGISTRY_URL,
    offline: r.offline,
  });
  // Only stale or partial answers are worth a line on stderr.
  if (res.from === 'cache')
    r.ctx.io.stderr.write(`talaria: using the cached registry from ${formatAge(res.ageMs)} (${res.note})\n`);
  for (const problem of res.index.problems) r.ctx.io.stderr.write(`talaria: ${problem}\n`);
  return res;
}

async function search(r: Run): Promise<number> {
  if (r.args.length > 1) throw new UsageError(`agents search: one QUERY at most (quote it)`);
  const res = await index(r);
  const q = (r.args[0] ?? '').toLowerCase();
  const hits = res.index.agents.filter(
    (a) => !q || [a.id, a.name, a.description].some((f) => f.toLowerCase().includes(q)),
  );
  const installedIds = new Map(currentInstalls(r.home).agents.map((a) => [a.id, a.version]));
  if (r.json) {
    const agents = hits.map((a) => ({ ...a, installed: installedIds.get(a.id) ?? null }));
    r.ctx.io.stdout.write(
      JSON.stringify({ v: 1, url: res.url, from: res.from, ageMs: res.ageMs, agents }, null, 2) + '\n',
    );
    return EXIT.OK;
  }
  for (const a of hits) {
    const have = installedIds.get(a.id);
    const kinds = distributionKinds(a).join('/');
    r.ctx.io.stdout.write(
      `${a.id.padEnd(20)} ${a.version.padEnd(10)} ${kinds.padEnd(10)} ${a.name} — ${a.description}${have ? ` [installed ${have}]` : ''}\n`,
    );
  }
  r.ctx.io.stdout.write(`${hits.length} of ${res.index.agents.length} agents · talaria agents add ID\n`);
  return EXIT.OK;
}

function distributionKinds(a: AgentEntry): string[] {
  return (['npx', 'uvx', 'binary'] as const).filter((k) => a.distribution[k] !== undefined);
}

async function add(r: Run): Promise<number> {
  if (r.args.length === 0) throw new UsageError('agents add: which agent? (talaria agents add ID[@VERSION])');
  const env = currentEnv({ env: r.ctx.io.env });
  const builtins = new Map(builtinProviders().map((p) => [p.id, p]));
  let res: Promise<IndexResult> | undefined;
  const done: InstalledAgent[] = [];
  for (const spec of r.args) {
    const a = await addAgent(spec, {
      home: r.home,
      ctx: env,
      preview: r.preview,
      index: () => (res ??= index(r)),
      builtin: (id) => builtins.get(id),
    });
    done.push(a);
    if (!r.json)
      r.ctx.io.stdout.write(
        `installed ${a.id} ${a.version} (${a.origin === 'npm' ? 'npm' : a.kind} ${a.source}) · talaria run --agent ${a.id} "…"\n`,
      );
  }
  if (r.json) r.ctx.io.stdout.write(JSON.stringify({ v: 1, installed: done }, null, 2) + '\n');
  return EXIT.OK;
}

function remove(r: Run): number {
  if (r.args.length === 0) throw new UsageError('agents remove: which agent? (talaria agents remove ID)');
  for (const id of r.args) {
    const versions = removeInstalled(r.home, id);
    if (versions.length === 0)
      throw new RegistryError('agent_unknown', `"${id}" is not installed (talaria agents --installed lists what is)`, {
        id,
      });
    r.ctx.io.stdout.write(`removed ${id} ${versions.join(', ')}\n`);
  }
  return EXIT.OK;
}

async function update(r: Run): Promise<number> {
  const current = currentInstalls(r.home).agents.filter((a) => r.args.length === 0 || r.args.includes(a.id));
  for (const id of r.args)
    if (!current.some((a) => a.id === id)) throw new RegistryError('agent_unknown', `"${id}" is not installed`, { id });
  if (current.length === 0) {
    r.ctx.io.stdout.write('nothing installed from the registry (talaria agents add ID)\n');
    return EXIT.OK;
  }
  const res = await index(r);
  const env = currentEnv({ env: r.ctx.io.env });
  for (const a of current) {
    const u = await updateInstalled(a, res, { home: r.home, ctx: env });
    if (u.status === 'updated') r.ctx.io.stdout.write(`${a.id}: ${a.version} → ${u.to}\n`);
    else
      r.ctx.io.stdout.write(
        u.status === 'up-to-date'
          ? `${a.id} ${a.version}: up to date\n`
          : `${a.id} ${a.version}: no longer in the registry (kept)\n`,
      );
  }
  return EXIT.OK;
}

function installed(r: Run): number {
  const { agents, problems } = currentInstalls(r.home);
  for (const p of problems) r.ctx.io.stderr.write(`talaria: ${p}\n`);
  if (r.json) {
    r.ctx.io.stdout.write(JSON.stringify({ v: 1, agents }, null, 2) + '\n');
    return EXIT.OK;
  }
  for (const a of agents)
    r.ctx.io.stdout.write(
      `${a.id.padEnd(20)} ${a.version.padEnd(10)} ${(a.origin ?? a.kind).padEnd(7)} ${a.source}${a.origin === 'npm' ? ' (the built-in agent, from npm)' : ''}\n`,
    );
  if (agents.length === 0) r.ctx.io.stdout.write('nothing installed (talaria agents search, talaria agents add ID)\n');
  return EXIT.OK;
}
