/**
 * User-defined agents (name, command, args, env) from $TALARIA_HOME/config.json, Zed's
 * `agent_servers` or JetBrains' acp.json, as providers. Their env is the user's own
 * configuration, so it is set explicitly (secrets included), and so are the variables of ours
 * the user listed in `passEnv`. They get the quirks of whatever agent the command turns out to be
 * (quirks/: by what it says in initialize), like a built-in.
 */
import { defineProvider } from './define.js';
import { expandHome, which } from './locate.js';
import type { Provider, ProviderSource } from './types.js';

import type { AgentDefinition } from './config.js';

export type { AgentDefinition };

/** "My Agent" → "my-agent": provider ids are lowercase slugs. */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return s || 'agent';
}

export function customProvider(
  def: AgentDefinition,
  o: { id?: string; source?: ProviderSource; agentName?: string } = {},
): Provider {
  const id = o.id ?? slugify(def.name);
  const source = o.source ?? 'config';
  return defineProvider({
    id,
    label: def.label ?? def.name,
    source,
    install: `Check the command of agent "${def.name}" (${def.command}) in ${source === 'config' ? 'config.json' : source === 'zed' ? "Zed's settings" : 'acp.json'}.`,
    locate: async (ctx) => {
      const found = which(expandHome(def.command, ctx.homeDir), ctx);
      return found
        ? { command: found, args: (def.args ?? []).map((a) => expandHome(a, ctx.homeDir)), via: source }
        : undefined;
    },
    env: { set: { ...(def.env ?? {}) }, pass: [...(def.passEnv ?? [])] },
    clientCaps: {
      ...(def.fs === false ? { fs: { read: false, write: false } } : {}),
      ...(def.terminal === false ? { terminal: false } : {}),
    },
    check: { versionArgs: null },
    // Known only when it named itself before (a stored session's agent): its capabilities from the start.
    ...(o.agentName !== undefined ? { agentName: o.agentName } : {}),
    ...(def.maxConcurrentTurns !== undefined ? { maxConcurrentTurns: def.maxConcurrentTurns } : {}),
    ...(def.sessionsSurviveRestart !== undefined ? { sessionsSurviveRestart: def.sessionsSurviveRestart } : {}),
    ...(def.usage !== undefined ? { usage: def.usage } : {}),
  });
}

/** A built-in agent with what the user configured for it in config.json (an entry without a command). */
export function withUserEnv(p: Provider, def: Pick<AgentDefinition, 'env' | 'passEnv'>): Provider {
  return {
    ...p,
    env: {
      inherit: p.env.inherit,
      pass: [...p.env.pass, ...(def.passEnv ?? [])],
      set: { ...p.env.set, ...(def.env ?? {}) },
    },
  };
}
