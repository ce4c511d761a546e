/**
 * The provider registry: built-ins (Hermes first), then the user's agents from config.json
 * (which may replace a built-in of the same id: the user's word wins), then agents imported from
 * Zed and JetBrains under `zed:<slug>` / `jetbrains:<slug>` (never replacing anything).
 */
import { TalariaError } from '../protocol/errors.js';
import { claudeCode, codex, demoProvider, gemini, kimi, opencode } from './builtin.js';
import { copilot, cursor, kilo, pi, qwen } from './builtin-extra.js';
import { withAuthMark } from './auth.js';
import { loadConfig, talariaHome, type TalariaConfig } from './config.js';
import { customProvider, slugify, withUserEnv } from './custom.js';
import { hermesProvider } from './hermes/provider.js';
import { importJetBrainsAgents, importZedAgents, type ImportResult } from './imports.js';
import { currentInstalls } from './registry-acp/installed.js';
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
    if (!p) throw new TalariaError('invalid_argument', `unknown agent "${id}"; known: ${[...this.map.keys()].join(', ')}`, { provider: id });
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
}

export function builtinProviders(o: { demo?: CommandSpec } = {}): Provider[] {
  const list = [hermesProvider, claudeCode, codex, gemini, opencode, kimi, qwen, copilot, kilo, pi, cursor];
  if (o.demo) list.push(demoProvider(o.demo));
  return list;
}

export function createRegistry(o: RegistryOptions = {}): ProviderRegistry {
  const reg = new ProviderRegistry(builtinProviders(o.demo ? { demo: o.demo } : {}));
  for (const p of o.installed ?? []) reg.add(p);
  for (const [name, def] of Object.entries(o.config?.agents ?? {})) {
    // No command: the user's env for the built-in of that id (an unknown id is reported by loadRegistry).
    if (def.command !== undefined) reg.add(customProvider({ name, ...def, command: def.command }, { source: 'config' }));
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
  const registry = createRegistry({ config, imported, installed: installs.agents.map(installedProvider), ...(o.demo ? { demo: o.demo } : {}) });
  // An agent that asked for a sign-in (auth.ts's mark) shows it in every readiness check.
  for (const p of registry.list()) registry.add(withAuthMark(p, home));
  for (const [name, def] of Object.entries(config.agents)) {
    if (def.command === undefined && !registry.has(name)) problems.push(`agent "${name}" skipped: no "command", and there is no built-in agent "${name}" to configure`);
  }
  return { registry, config, problems };
}
