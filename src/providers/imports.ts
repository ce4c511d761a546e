/**
 * Agent definitions a user already has elsewhere:
 * - Zed: `agent_servers` in settings.json (JSON with comments). Custom entries have a command
 *   (`{"type": "custom", "command", "args", "env"}`, or the older `{"command": {"path", "args",
 *   "env"}}`); registry/extension/built-in entries have none and are skipped with a reason.
 * - JetBrains: `~/.jetbrains/acp.json`, `{"agent_servers": {"Name": {command, args, env}}}`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentDefinition } from './custom.js';
import { parseJsonc } from './jsonc.js';
import type { ProviderEnv } from './types.js';
import { isRecord } from '../os/record.js';

export interface ImportResult {
  agents: AgentDefinition[];
  skipped: { name: string; reason: string }[];
  /** The file read (absent when it does not exist). */
  file?: string;
  /** Why the file could not be used at all (unreadable, not JSON). */
  error?: string;
}

type Obj = Record<string, unknown>;

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

function envOf(v: unknown): Record<string, string> | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v))
    if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
  return out;
}

/** One `agent_servers` entry → a definition, or the reason it is not importable. */
function entry(name: string, v: unknown): AgentDefinition | string {
  if (!isRecord(v)) return 'not an object';
  let command: unknown = v.command;
  let args: unknown = v.args;
  let env: unknown = v.env;
  if (isRecord(command)) {
    // Older Zed shape: "command": {"path", "args", "env"}.
    args = command.args ?? args;
    env = command.env ?? env;
    command = command.path;
  }
  if (typeof v.type === 'string' && v.type !== 'custom' && command === undefined)
    return `managed by the editor (type "${v.type}")`;
  if (typeof command !== 'string' || command.trim() === '') return 'no command';
  const def: AgentDefinition = { name, command: command.trim() };
  if (args !== undefined) {
    const a = strings(args);
    if (!a) return '"args" is not a list of strings';
    def.args = a;
  }
  const e = envOf(env);
  if (e && Object.keys(e).length) def.env = e;
  return def;
}

function fromServers(servers: unknown): Pick<ImportResult, 'agents' | 'skipped'> {
  const out: Pick<ImportResult, 'agents' | 'skipped'> = { agents: [], skipped: [] };
  if (!isRecord(servers)) return out;
  for (const [name, v] of Object.entries(servers)) {
    const r = entry(name, v);
    if (typeof r === 'string') out.skipped.push({ name, reason: r });
    else out.agents.push(r);
  }
  return out;
}

function parseFile(text: string): { root?: Obj; error?: string } {
  try {
    const root = parseJsonc(text);
    return isRecord(root) ? { root } : { error: 'the file is not a JSON object' };
  } catch (e) {
    return { error: `not valid JSON: ${(e as Error).message}` };
  }
}

export function parseZedSettings(text: string): ImportResult {
  const { root, error } = parseFile(text);
  if (!root) return { agents: [], skipped: [], error: error ?? 'unreadable' };
  return fromServers(root.agent_servers);
}

export function parseJetBrainsAcp(text: string): ImportResult {
  const { root, error } = parseFile(text);
  if (!root) return { agents: [], skipped: [], error: error ?? 'unreadable' };
  return fromServers(root.agent_servers);
}

export function zedSettingsPath(ctx: ProviderEnv): string {
  if (ctx.platform === 'win32')
    return join(ctx.env.APPDATA ?? join(ctx.homeDir, 'AppData', 'Roaming'), 'Zed', 'settings.json');
  return join(ctx.env.XDG_CONFIG_HOME || join(ctx.homeDir, '.config'), 'zed', 'settings.json');
}

export function jetbrainsAcpPath(ctx: ProviderEnv): string {
  return join(ctx.homeDir, '.jetbrains', 'acp.json');
}

function readWith(file: string, parse: (text: string) => ImportResult): ImportResult {
  if (!existsSync(file)) return { agents: [], skipped: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { agents: [], skipped: [], file, error: `cannot read: ${(e as Error).message}` };
  }
  return { ...parse(text), file };
}

export function importZedAgents(ctx: ProviderEnv, file = zedSettingsPath(ctx)): ImportResult {
  return readWith(file, parseZedSettings);
}

export function importJetBrainsAgents(ctx: ProviderEnv, file = jetbrainsAcpPath(ctx)): ImportResult {
  return readWith(file, parseJetBrainsAcp);
}
