/**
 * What a provider's process is started with: the located command, in the workspace, with an
 * env that holds no credential of ours unless the user said so: the allow-listed basics
 * (spawn.ts), the provider's non-secret settings (where its config lives, which model), what the
 * user configured for the agent in config.json (`env`, or `passEnv` names of our env) and the
 * workspace's env.
 */
import { isSecretName } from '../os/env.js';
import type { SpawnAgentOptions } from '../protocol/spawn.js';
import type { ClientCaps, Located, Provider, ProviderEnv } from './types.js';

/**
 * The variables set explicitly in the agent's env (the allow-listed basics come on top). Read
 * from `ctx.env`, so what an agent gets never depends on where we run. `inherit` never carries a
 * secret-looking name; `pass` is the user's own list and may.
 */
export function agentEnv(
  provider: Provider,
  ctx: ProviderEnv,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  const copy = (name: string) => {
    const v = ctx.env[name];
    if (v !== undefined && v !== '') env[name] = v;
  };
  for (const name of provider.env.inherit) if (!isSecretName(name)) copy(name);
  for (const name of provider.env.pass) copy(name);
  return { ...env, ...provider.env.set, ...extra };
}

export function spawnOptions(
  provider: Provider,
  located: Located,
  ctx: ProviderEnv,
  o: { cwd: string; env?: Record<string, string> },
): SpawnAgentOptions {
  return {
    command: located.command,
    args: located.args,
    cwd: o.cwd,
    env: agentEnv(provider, ctx, o.env),
  };
}

/**
 * ClientCaps plus `_meta` for initialize's clientCapabilities (the Claude adapters list their
 * login method only under `terminal-auth`). Kept here until ClientCaps in types.ts gains `_meta`.
 */
export interface ClientCapsWithMeta extends ClientCaps {
  _meta?: Record<string, unknown>;
}

export interface ClientCapFields {
  fs: { read: boolean; write: boolean };
  terminal: boolean;
  clientCapabilityOverrides?: { _meta: Record<string, unknown> };
}

/** ClientOptions fields that follow from the provider's capability ceilings (and its `_meta`). */
export function clientCapOptions(provider: Provider): ClientCapFields {
  const meta = (provider.clientCaps as ClientCapsWithMeta)._meta;
  return {
    fs: { read: provider.clientCaps.fs?.read !== false, write: provider.clientCaps.fs?.write !== false },
    terminal: provider.clientCaps.terminal !== false,
    ...(meta ? { clientCapabilityOverrides: { _meta: { ...meta } } } : {}),
  };
}
