/**
 * `$TALARIA_HOME/config.json`: user-defined agents, the default provider, per-workspace
 * bindings (provider, profile, env) and which editor settings to import. Loading is tolerant:
 * a bad entry is skipped and reported, never fatal for the others.
 *
 *   { "defaultProvider": "hermes",
 *     "agents": { "my-agent": { "command": "my-agent", "args": ["--acp"], "env": {"K": "v"} },
 *                 "codex": { "passEnv": ["OPENAI_API_KEY"] },
 *                 "claude-code": { "env": { "ANTHROPIC_API_KEY": "sk-…" } } },
 *     "workspaces": { "/home/me/proj": { "provider": "hermes", "profile": "work", "env": {"A": "1"} } },
 *     "imports": { "zed": true, "jetbrains": true },
 *     "store": "postgres://talaria@db.internal/talaria" }
 *
 * Credentials reach an agent only from here: `env` (values, kept in this 0600 file) or
 * `passEnv` (names of variables of Talaria's own environment to hand on). An entry without a
 * command configures the built-in agent of that id.
 */
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../os/private-files.js';
import { parseJsonc } from './jsonc.js';
import { remoteLaunch } from './remote.js';
import { isRecord } from '../os/record.js';

const envMap = z.record(z.string(), z.string());
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name');

export const agentSchema = z.object({
  command: z.string().min(1).optional(),
  /** An agent over WebSocket (ws:// on loopback, else wss:// with a token), instead of a command. */
  url: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: envMap.optional(),
  passEnv: z.array(envName).optional(),
  label: z.string().optional(),
  maxConcurrentTurns: z.number().int().positive().optional(),
  fs: z.boolean().optional(),
  terminal: z.boolean().optional(),
  sessionsSurviveRestart: z.boolean().optional(),
  usage: z.enum(['per-turn', 'cumulative', 'none']).optional(),
});

export const workspaceSchema = z.object({
  provider: z.string().min(1).optional(),
  profile: z.string().min(1).optional(),
  env: envMap.optional(),
});

export interface WorkspaceBinding {
  provider?: string;
  profile?: string;
  env?: Record<string, string>;
}

/** A user-defined agent (config.json's `agents`, or added by `talaria agents add`): custom.ts turns it into a provider. */
export interface AgentDefinition {
  /** Display name as the user wrote it ("My Agent"). */
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Names of variables of Talaria's own environment handed to the agent (credentials included: the user asked). */
  passEnv?: string[];
  label?: string;
  maxConcurrentTurns?: number;
  /** Switch off fs/* or terminal/* for this agent (capability ceilings). */
  fs?: boolean;
  terminal?: boolean;
  /** False when the agent cannot load its sessions after a restart (no idle reap then). */
  sessionsSurviveRestart?: boolean;
  usage?: 'per-turn' | 'cumulative' | 'none';
}

/** An agents entry: a whole agent (with `command`), or only `env` / `passEnv` for a built-in. */
export type AgentConfig = Omit<AgentDefinition, 'name' | 'command'> & { command?: string };

/** The fields that apply to a built-in agent configured without a command. */
const BUILTIN_FIELDS = new Set(['env', 'passEnv']);

export interface TalariaConfig {
  defaultProvider?: string;
  agents: Record<string, AgentConfig>;
  workspaces: Record<string, WorkspaceBinding>;
  imports: { zed: boolean; jetbrains: boolean };
  /** `warm: false`: no agent process started ahead, no spare session kept (the warm pool). */
  warm?: boolean;
  /** Largest prompt a session takes, in bytes (default 8 MiB); a larger one is refused before it is sent. */
  maxPromptBytes?: number;
  /**
   * Where the store is, instead of `<home>/talaria.db`: a database file (absolute path) or a
   * `postgres://` URL (a fleet's shared store; its password may also come from PGPASSWORD).
   */
  store?: string;
}

export function emptyConfig(): TalariaConfig {
  return { agents: {}, workspaces: {}, imports: { zed: true, jetbrains: true } };
}

export function configPath(home: string): string {
  return join(home, 'config.json');
}

/** Parses config text; every problem is a human sentence naming the entry. */
export function parseConfig(text: string): { config: TalariaConfig; problems: string[] } {
  const config = emptyConfig();
  const problems: string[] = [];
  let root: unknown;
  try {
    root = parseJsonc(text);
  } catch (e) {
    return { config, problems: [`config.json is not valid JSON: ${(e as Error).message}`] };
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root))
    return { config, problems: ['config.json must be a JSON object'] };
  const r = root as Record<string, unknown>;
  if (typeof r.defaultProvider === 'string' && r.defaultProvider) config.defaultProvider = r.defaultProvider;
  else if (r.defaultProvider !== undefined) problems.push('defaultProvider must be a provider id (a string)');
  for (const [name, v] of Object.entries(asRecord(r.agents, 'agents', problems))) {
    const p = agentSchema.safeParse(v);
    if (!p.success) {
      problems.push(`agent "${name}" skipped: ${issues(p.error)}`);
      continue;
    }
    const { url, ...def } = stripUndefined(p.data);
    if (url !== undefined) {
      if (def.command !== undefined) {
        problems.push(`agent "${name}" skipped: give either "command" or "url", not both`);
        continue;
      }
      try {
        // Reached through Talaria's stdio ⇄ WebSocket pipe (providers/remote.ts); the token from the URL or env.TALARIA_TOKEN.
        const r = remoteLaunch(url, { what: `agent "${name}" url`, envToken: def.env?.TALARIA_TOKEN });
        config.agents[name] = {
          ...def,
          command: r.command,
          args: r.args,
          env: { ...def.env, ...r.env },
          label: def.label ?? `${name} (${r.label})`,
        };
      } catch (e) {
        problems.push(`agent "${name}" skipped: ${(e as Error).message}`);
      }
      continue;
    }
    if (def.command !== undefined) {
      config.agents[name] = def;
      continue;
    }
    const kept = stripUndefined({ env: def.env, passEnv: def.passEnv });
    const ignored = Object.keys(def).filter((k) => !BUILTIN_FIELDS.has(k));
    if (Object.keys(kept).length === 0) {
      problems.push(
        `agent "${name}" skipped: no "command" (an entry without one configures the built-in agent of that id with "env" / "passEnv")`,
      );
      continue;
    }
    if (ignored.length)
      problems.push(
        `agent "${name}": without "command" only "env" and "passEnv" apply (they configure the built-in agent "${name}"); ignored: ${ignored.join(', ')}`,
      );
    config.agents[name] = kept;
  }
  for (const [ws, v] of Object.entries(asRecord(r.workspaces, 'workspaces', problems))) {
    const p = workspaceSchema.safeParse(v);
    if (p.success) config.workspaces[resolve(ws)] = stripUndefined(p.data);
    else problems.push(`workspace "${ws}" skipped: ${issues(p.error)}`);
  }
  if (typeof r.warm === 'boolean') config.warm = r.warm;
  else if (r.warm !== undefined) problems.push('warm must be true or false');
  if (typeof r.maxPromptBytes === 'number' && Number.isInteger(r.maxPromptBytes) && r.maxPromptBytes > 0)
    config.maxPromptBytes = r.maxPromptBytes;
  else if (r.maxPromptBytes !== undefined) problems.push('maxPromptBytes must be a positive whole number of bytes');
  if (typeof r.store === 'string' && (/^postgres(ql)?:\/\//.test(r.store) || isAbsolute(r.store)))
    config.store = r.store;
  else if (r.store !== undefined)
    problems.push(
      'store must be a postgres:// URL or the absolute path of a database file (ignored: the default store is used)',
    );
  const imp = asRecord(r.imports, 'imports', problems);
  if (typeof imp.zed === 'boolean') config.imports.zed = imp.zed;
  if (typeof imp.jetbrains === 'boolean') config.imports.jetbrains = imp.jetbrains;
  return { config, problems };
}

export function loadConfig(home: string): { config: TalariaConfig; problems: string[]; file: string } {
  const file = configPath(home);
  if (!existsSync(file)) return { config: emptyConfig(), problems: [], file };
  try {
    return { ...parseConfig(readFileSync(file, 'utf8')), file };
  } catch (e) {
    return { config: emptyConfig(), problems: [`cannot read ${file}: ${(e as Error).message}`], file };
  }
}

/** Writes atomically (temp file + rename: a crash never leaves half a config), 0600 in a 0700 home: it may hold keys. */
export function saveConfig(home: string, config: TalariaConfig): string {
  const file = configPath(home);
  ensurePrivateDir(dirname(file));
  writePrivateFile(file, JSON.stringify(config, null, 2) + '\n', { atomic: true });
  return file;
}

/** The binding of the nearest configured ancestor of `workspace` (or the workspace itself). */
export function workspaceBinding(
  config: TalariaConfig,
  workspace: string,
): { path: string; binding: WorkspaceBinding } | undefined {
  const ws = resolve(workspace);
  let best: string | undefined;
  for (const key of Object.keys(config.workspaces)) {
    if ((ws === key || ws.startsWith(key.endsWith(sep) ? key : key + sep)) && (!best || key.length > best.length))
      best = key;
  }
  return best ? { path: best, binding: config.workspaces[best]! } : undefined;
}

/** Returns a new config with `workspace` bound to a provider / profile / env (undefined fields removed). */
export function bindWorkspace(config: TalariaConfig, workspace: string, binding: WorkspaceBinding): TalariaConfig {
  const ws = resolve(workspace);
  const merged = stripUndefined({ ...(config.workspaces[ws] ?? {}), ...binding });
  return { ...config, workspaces: { ...config.workspaces, [ws]: merged } };
}

export interface ProviderChoice {
  provider: string;
  profile?: string;
  /** Which setting decided the provider. */
  from: 'session' | 'workspace' | 'default' | 'builtin';
}

export const FALLBACK_PROVIDER = 'hermes';

/** Per-session override > workspace binding > configured default > Hermes. */
export function resolveProvider(
  config: TalariaConfig,
  o: { workspace: string; override?: { provider?: string; profile?: string } },
): ProviderChoice {
  const bound = workspaceBinding(config, o.workspace)?.binding;
  const ov = o.override ?? {};
  let choice: ProviderChoice;
  if (ov.provider) choice = { provider: ov.provider, from: 'session' };
  else if (bound?.provider) choice = { provider: bound.provider, from: 'workspace' };
  else if (config.defaultProvider) choice = { provider: config.defaultProvider, from: 'default' };
  else choice = { provider: FALLBACK_PROVIDER, from: 'builtin' };
  // A workspace's profile applies only to the provider it was bound with (or to any, when unbound).
  const boundProfile =
    bound?.profile && (!bound.provider || bound.provider === choice.provider) ? bound.profile : undefined;
  const profile = ov.profile ?? boundProfile;
  if (profile) choice.profile = profile;
  return choice;
}

function asRecord(v: unknown, name: string, problems: string[]): Record<string, unknown> {
  if (v === undefined) return {};
  if (isRecord(v)) return v;
  problems.push(`${name} must be an object`);
  return {};
}

function issues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
