/**
 * The steps of a sign-in, shared by `talaria login` and the server's login route: start the
 * agent offering terminal auth (so it lists those methods too), `authenticate` with an agent
 * method, say how to run a terminal method, and check readiness for real afterwards (the mark
 * cleared, or written again from what the agent says now).
 */
import { TalariaError } from '../protocol/errors.js';
import { buildChildEnv } from '../os/env.js';
import { AcpClient } from '../session/client.js';
import { authMethodInfos, clearAuthMark, markAuthRequired, terminalLaunch, type AuthMethodInfo } from './auth.js';
import { agentEnv, clientCapOptions, spawnOptions, type ClientCapsWithMeta } from './launch.js';
import { probeProvider, type ProbeResult } from './probe.js';
import { which } from './locate.js';
import type { Located, Provider, ProviderEnv } from './types.js';

export interface SignInAgent {
  client: AcpClient;
  located: Located;
  /** initialize's authMethods as the agent sent them (terminal ones carry how to run them). */
  raw: unknown[];
  methods: AuthMethodInfo[];
}

/** Client capabilities for a sign-in run: terminal auth offered (ACP's `auth.terminal` and the Claude adapters' `_meta`). */
export function signInCaps(provider: Provider) {
  const caps = clientCapOptions(provider);
  const meta = { ...((provider.clientCaps as ClientCapsWithMeta)._meta ?? {}), 'terminal-auth': true };
  return { ...caps, clientCapabilityOverrides: { _meta: meta, auth: { terminal: true } } };
}

/** Starts the agent and reads its methods; `spawn_failed` when it cannot be found or started. */
export async function startForSignIn(
  provider: Provider,
  ctx: ProviderEnv,
  o: { cwd: string; timeoutMs: number; profile?: string },
): Promise<SignInAgent> {
  const located = await provider.locate(ctx, o.profile ? { profile: o.profile } : {});
  if (!located)
    throw new TalariaError('spawn_failed', `${provider.label} was not found. ${provider.install}`, {
      provider: provider.id,
    });
  const client = await AcpClient.spawn(spawnOptions(provider, located, ctx, { cwd: o.cwd }), {
    setupTimeoutMs: o.timeoutMs,
    ...signInCaps(provider),
    ...(ctx.logger ? { logger: ctx.logger } : {}),
  });
  const raw = [...client.capabilities.authMethods];
  return { client, located, raw, methods: authMethodInfos(raw) };
}

/** ACP `authenticate` with an agent method (the agent's refusal is thrown as it came). */
export async function authenticateWith(a: SignInAgent, methodId: string, timeoutMs: number): Promise<void> {
  await a.client.connection.request('authenticate', { methodId }, { timeoutMs });
}

/** What a terminal method runs: the agent's command plus the method's args (ACP), or `_meta` terminal-auth's own command. */
export function terminalCommand(
  provider: Provider,
  ctx: ProviderEnv,
  a: SignInAgent,
  methodId: string,
): { command: string; args: string[]; env: Record<string, string> } {
  const launch = terminalLaunch(a.raw.find((m) => (m as { id?: unknown })?.id === methodId));
  if (!launch)
    throw new TalariaError('invalid_argument', `${methodId} is not a terminal sign-in method of ${provider.label}`);
  return {
    command: launch.command ?? a.located.command,
    args: launch.command ? launch.args : [...a.located.args, ...launch.args],
    env: buildChildEnv(ctx.env as NodeJS.ProcessEnv, { set: { ...agentEnv(provider, ctx), ...launch.env } }),
  };
}

/** Readiness for real after a sign-in (agent started, a session opened in a scratch folder); the mark follows. */
export async function recheckSignIn(
  provider: Provider,
  ctx: ProviderEnv,
  o: { home: string; timeoutMs: number; profile?: string },
): Promise<ProbeResult> {
  clearAuthMark(o.home, provider.id, o.profile);
  const r = await probeProvider(provider, ctx, {
    timeoutMs: o.timeoutMs,
    ...(o.profile ? { profile: o.profile } : {}),
  });
  const auth = r.gaps.find((g) => g.code === 'auth');
  if (auth)
    markAuthRequired(o.home, {
      providerId: provider.id,
      ...(o.profile ? { profile: o.profile } : {}),
      message: r.authError ?? auth.message,
      authMethods: r.authMethods,
      where: 'login',
    });
  return r;
}

/** How to install the command-line tools agents' terminal sign-ins run (claude-agent-acp's `claude /login`). */
const SIGN_IN_TOOLS: Record<string, string> = {
  claude: 'npm install -g @anthropic-ai/claude-code',
};

/**
 * A terminal sign-in whose command is not installed, said plainly before anything starts ("the
 * `claude` CLI is needed"), with the command that installs it when Talaria knows it.
 */
export function missingSignInTool(command: string, ctx: ProviderEnv): { message: string; fix: string } | undefined {
  if (which(command, ctx)) return undefined;
  const name = command.split(/[\\/]/).pop()!;
  const install = SIGN_IN_TOOLS[name];
  return {
    message: `This sign-in runs \`${name}\`: the \`${name}\` CLI is needed and is not installed here.`,
    fix: install
      ? `Install it with \`${install}\`, then sign in again.`
      : `Install \`${name}\` so that it is on PATH, then sign in again.`,
  };
}
