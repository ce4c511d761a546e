/**
 * defineProvider fills a descriptor's defaults, so each agent file only states what is special
 * about how it is found and started (its quirks are in quirks/, chosen by what it says).
 */
import { cliReadiness, type CliReadinessSpec } from './readiness.js';
import type { Located, Provider, ProviderEnv, ReadinessOptions } from './types.js';

export type ProviderSpec = Pick<Provider, 'id' | 'label' | 'locate'> &
  Partial<Omit<Provider, 'id' | 'label' | 'locate' | 'env'>> & {
    env?: Partial<Provider['env']>;
    /** Used by the default readiness (when `readiness` is not given). */
    check?: CliReadinessSpec;
  };

export function defineProvider(spec: ProviderSpec): Provider {
  const p: Provider = {
    id: spec.id,
    label: spec.label,
    source: spec.source ?? 'builtin',
    install: spec.install ?? `Install ${spec.label} and make sure its command is on PATH.`,
    locate: spec.locate,
    // `this`: a copy with the user's env (registry.ts) checks credentials against that env.
    readiness:
      spec.readiness ??
      function (this: Provider | undefined, ctx: ProviderEnv, o?: ReadinessOptions) {
        return cliReadiness(this ?? p, spec.check ?? { versionArgs: ['--version'] }, ctx, o);
      },
    env: { inherit: spec.env?.inherit ?? [], pass: spec.env?.pass ?? [], set: spec.env?.set ?? {} },
    clientCaps: spec.clientCaps ?? {},
    ...(spec.agentName !== undefined ? { agentName: spec.agentName } : {}),
    ...(spec.sessionsSurviveRestart !== undefined ? { sessionsSurviveRestart: spec.sessionsSurviveRestart } : {}),
    ...(spec.usage !== undefined ? { usage: spec.usage } : {}),
    maxConcurrentTurns: spec.maxConcurrentTurns ?? Number.POSITIVE_INFINITY,
    profiles: spec.profiles ?? false,
    ...(spec.npm !== undefined ? { npm: spec.npm } : {}),
  };
  return p;
}

/** A locate() for a fixed command that must exist on the search path. */
export function fixedCommand(
  name: string,
  args: readonly string[],
  whichFn: (n: string, ctx: ProviderEnv) => string | undefined,
) {
  return async (ctx: ProviderEnv): Promise<Located | undefined> => {
    const found = whichFn(name, ctx);
    return found ? { command: found, args: [...args], via: 'PATH' } : undefined;
  };
}
