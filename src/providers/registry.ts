/**
 * The provider registry: built-ins (Hermes first), then the user's agents from config.json
 * (which may replace a built-in of the same id: the user's word wins), then agents imported from
 * Zed and JetBrains under `zed:<slug>` / `jetbrains:<slug>` (never replacing anything).
 */
import { tmpdir } from 'node:os';
import { TalariaError } from '../protocol/errors.js';
import { claudeCode, codex, demoProvider, gemini, kimi, opencode } from './builtin.js';
import { copilot, cursor, kilo, pi, qwen } from './builtin-extra.js';
import { withAuthMark, type SignInLister } from './auth.js';
import { loadConfig, type TalariaConfig } from './config.js';
import { talariaHome } from '../os/home.js';
import { customProvider, slugify, withUserEnv } from './custom.js';
import { hermesProvider } from './hermes/provider.js';
import { startForSignIn } from './sign-in.js';
import { importJetBrainsAgents, importZedAgents, type ImportResult } from './imports.js';
import { currentInstalls } from './registry-acp/installed.js';
import { withNpmInstall } from './registry-acp/npm-builtin.js';
import { installedProvider } from './registry-acp/provider.js';
import type { CommandSpec, Provider, ProviderEnv } from './types.js';

export interface RegistryOptions {
  /** The bundled demo agent's command (the caller passes demoAgentCommand()). */
  demo?: CommandSpec;
  config?: TalariaConfig;
  imported?: { zed?: ImportResult; jetbrains?: ImportResult };
  /** Agents installed from the ACP Registry (`talaria agents add`): they replace a built-in of the same id, config.json replaces them. */
  installed?: Provider[];
  /** Extra providers (tests, embedders); they replace same-id entries. */
  extra?: Provider[];
}

export class ProviderRegistry {
  private readonly map = new Map<string, Provider>();

  constructor(providers: Provider[] = []) {
    for (const p of providers) this.map.set(p.id, p);
  }

  get(id: string): Provider | undefined {
    return this.map.get(id);
  }

  /** Like get, but an unknown id is a TalariaError listing the known ones. */
  require(id: string): Provider {
    const p = this.map.get(id);
    if (!p)
      throw new TalariaError('invalid_argument', `unknown agent "${id}"; known: ${[...this.map.keys()].join(', ')}`, {
        provider: id,
      });
    return p;
  }

  has(id: string): boolean {
    return this.map.has(id);
  }

  list(): Provider[] {
    return [...this.map.values()];
  }

  /** Adds or replaces (replace: false keeps an existing entry and returns false). */
  add(p: Provider, o: { replace?: boolean } = {}): boolean {
    if (this.map.has(p.id) && o.replace === false) return false;
    this.map.set(p.id, p);
    return true;
  }

  /** Drops an entry (an agent removed while the server runs); false when there was none. */
  remove(id: string): boolean {
    return this.map.delete(id);
  }
}

/** The methods a sign-in run sees (terminal ones included), the agent started in a neutral folder and closed. */
const listSignIn: SignInLister = async (p, ctx, o) => {
  const agent = await startForSignIn(p, ctx, { cwd: tmpdir(), timeoutMs: 30_000, ...o });
  await agent.client.close().catch(() => {});
  return agent.methods;
};

export function builtinProviders(o: { demo?: CommandSpec } = {}): Provider[] {
  const list = [hermesProvider, claudeCode, codex, gemini, opencode, kimi, qwen, copilot, kilo, pi, cursor];
  if (o.demo) list.push(demoProvider(o.demo));
  return list;
}

/**
 * The non-secret home variables the built-in agents read (HERMES_HOME, …). A bare `--agent-cmd`
 * gets them too: otherwise `hermes acp` typed by hand would quietly run against another home
 * than the same agent chosen by id (or the user's shell).
 */
export function agentHomeVariables(): string[] {
  return [...new Set(builtinProviders().flatMap((p) => [...p.env.inherit]))];
}

export function createRegistry(o: RegistryOptions = {}): ProviderRegistry {
  const reg = new ProviderRegistry(builtinProviders(o.demo ? { demo: o.demo } : {}));
  for (const p of o.installed ?? []) reg.add(p);
  for (const [name, def] of Object.entries(o.config?.agents ?? {})) {
    // No command: the user's env for the built-in of that id (an unknown id is reported by loadRegistry).
    if (def.command !== undefined)
      reg.add(customProvider({ name, ...def, command: def.command }, { source: 'config' }));
    else if (reg.has(name)) reg.add(withUserEnv(reg.require(name), def));
  }
  for (const source of ['zed', 'jetbrains'] as const) {
    for (const def of o.imported?.[source]?.agents ?? []) {
      reg.add(customProvider(def, { id: `${source}:${slugify(def.name)}`, source }), { replace: false });
    }
  }
  for (const p of o.extra ?? []) reg.add(p);
  return reg;
}

/** Reads config.json and the editors' settings from disk and builds the registry. */
export function loadRegistry(
  ctx: ProviderEnv,
  o: { demo?: CommandSpec; home?: string } = {},
): {
  registry: ProviderRegistry;
  config: TalariaConfig;
  problems: string[];
} {
  const home = o.home ?? talariaHome(ctx);
  const { config, problems } = loadConfig(home);
  const installs = currentInstalls(home);
  problems.push(...installs.problems);
  const imported: RegistryOptions['imported'] = {};
  if (config.imports.zed) imported.zed = importZedAgents(ctx);
  if (config.imports.jetbrains) imported.jetbrains = importJetBrainsAgents(ctx);
  for (const [source, r] of Object.entries(imported)) {
    if (r?.error) problems.push(`${source} agents not imported from ${r.file}: ${r.error}`);
  }
  // A built-in's own npm package runs as that built-in; a registry entry replaces it.
  const builtins = new Map(builtinProviders(o.demo ? { demo: o.demo } : {}).map((p) => [p.id, p]));
  const installed = installs.agents.map((a) => {
    const b = a.origin === 'npm' ? builtins.get(a.id) : undefined;
    return b ? withNpmInstall(b, a) : installedProvider(a);
  });
  const registry = createRegistry({
    config,
    imported,
    installed,
    ...(o.demo ? { demo: o.demo } : {}),
  });
  // An agent that asked for a sign-in (auth.ts's mark) shows it in every readiness check.
  for (const p of registry.list()) registry.add(withAuthMark(p, home, { listSignIn }));
  for (const [name, def] of Object.entries(config.agents)) {
    if (def.command === undefined && !registry.has(name))
      problems.push(`agent "${name}" skipped: no "command", and there is no built-in agent "${name}" to configure`);
  }
  return { registry, config, problems };
}

/**
 * After `agents add|update|remove` while a server runs: the registry-installed agents are read
 * again, so the running registry gains the new ones, follows new versions and drops removed ones
 * (a built-in or configured agent of the same id comes back). Other entries are left as they are.
 * Returns the ids whose entry changed.
 */
export function refreshInstalled(registry: ProviderRegistry, ctx: ProviderEnv, o: { home: string }): string[] {
  const fresh = loadRegistry(ctx, { home: o.home }).registry;
  const ids = new Set([...registry.list(), ...fresh.list()].filter((p) => p.source === 'registry').map((p) => p.id));
  // A built-in that gained, changed or lost its npm install (npm-builtin.ts).
  for (const p of fresh.list()) if (p.npm && p.npmInstalled !== registry.get(p.id)?.npmInstalled) ids.add(p.id);
  const changed: string[] = [];
  for (const id of ids) {
    const next = fresh.get(id);
    if (next) registry.add(next);
    else registry.remove(id);
    changed.push(id);
  }
  return changed;
}
