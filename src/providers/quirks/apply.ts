/**
 * A chosen quirk set applied to a provider: the client capabilities to offer in `initialize`,
 * the session hooks, the host switches, usage and restart facts. The user's own settings for
 * an agent (config.json `fs: false`, `usage`, `sessionsSurviveRestart`) win over the set's.
 */
import type { PermissionMode } from '../../permission/types.js';
import type { SessionHooks } from '../../session/hooks.js';
import type { ClientCapFields, ClientCapsWithMeta } from '../launch.js';
import type { HookOptions, Provider, ProviderQuirks } from '../types.js';
import { choiceForAgent } from './catalog.js';
import type { QuirkChoice } from './types.js';

export interface AppliedQuirks {
  readonly choice: QuirkChoice;
  /** What to offer in `initialize`. */
  readonly caps: ClientCapFields;
  hooks(o?: HookOptions): SessionHooks;
  readonly host: ProviderQuirks;
  readonly usage: 'per-turn' | 'cumulative' | 'none';
  readonly sessionsSurviveRestart: boolean;
  modeFor?(mode: PermissionMode): string | undefined;
}

type Ceilings = Pick<Provider, 'clientCaps'> & Partial<Pick<Provider, 'usage' | 'sessionsSurviveRestart'>>;

export function applyQuirks(provider: Ceilings | undefined, choice: QuirkChoice): AppliedQuirks {
  const set = choice.set;
  const user = (provider?.clientCaps ?? {}) as ClientCapsWithMeta;
  const own = set.clientCaps ?? {};
  const meta = { ...(own._meta ?? {}), ...(user._meta ?? {}) };
  const caps: ClientCapFields = {
    fs: {
      read: user.fs?.read !== false && own.fs?.read !== false,
      write: user.fs?.write !== false && own.fs?.write !== false,
    },
    terminal: user.terminal !== false && own.terminal !== false,
    ...(Object.keys(meta).length ? { clientCapabilityOverrides: { _meta: meta } } : {}),
  };
  return {
    choice,
    caps,
    hooks: (o = {}) => ({ ...(set.hooks?.(o) ?? {}) }),
    host: { ...(set.host ?? {}) },
    usage: provider?.usage ?? set.usage ?? 'per-turn',
    sessionsSurviveRestart: provider?.sessionsSurviveRestart ?? set.sessionsSurviveRestart ?? true,
    ...(set.modeFor ? { modeFor: set.modeFor } : {}),
  };
}

/** Whether two launches offer the same client capabilities (else the agent must be restarted). */
export function sameCaps(a: ClientCapFields, b: ClientCapFields): boolean {
  return (
    a.fs.read === b.fs.read &&
    a.fs.write === b.fs.write &&
    a.terminal === b.terminal &&
    JSON.stringify(a.clientCapabilityOverrides?._meta ?? {}) ===
      JSON.stringify(b.clientCapabilityOverrides?._meta ?? {})
  );
}

/**
 * The session hooks for an agent known only by what it said (a stored session's agentInfo, a
 * recorded log): its quirk set's, from the catalog, as a live session of it would get them.
 */
export function hooksForAgent(info: { name?: unknown; version?: unknown } | undefined): SessionHooks | undefined {
  if (typeof info?.name !== 'string' || info.name === '') return undefined;
  const choice = choiceForAgent({
    name: info.name,
    ...(typeof info.version === 'string' ? { version: info.version } : {}),
  });
  return choice.set.hooks ? applyQuirks(undefined, choice).hooks() : undefined;
}
