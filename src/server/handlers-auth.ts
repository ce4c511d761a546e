/**
 * Sign-in routes (contract/auth.ts): one agent's readiness with its sign-in methods, and a
 * sign-in with an agent-type method. A terminal-type method is refused with 409 (it runs over
 * the pty channel, pty-channel.ts, or `talaria login` in a terminal); an env_var one with where
 * to set the variable.
 */
import { tmpdir } from 'node:os';
import type { Harness } from '../harness/index.js';
import { authenticateWith, recheckSignIn, startForSignIn } from '../providers/sign-in.js';
import { errorText } from '../session/errors.js';
import type { HandlerMap } from './app.js';
import type { AuthRouteName } from './contract/index.js';
import type { REGISTRY_ROUTES } from './contract/registry.js';
import { HttpError } from './http-error.js';
import { signInInfo } from './provider-info.js';

const TIMEOUT_MS = 30_000;

export function authHandlers(
  harness: Harness,
  o: { onSignedIn?: () => void } = {},
): HandlerMap<Exclude<AuthRouteName, keyof typeof REGISTRY_ROUTES>> {
  const provider = (id: string) => {
    const p = harness.registry.get(id);
    if (!p) throw new HttpError('not_found', `no agent '${id}'`, 'GET /api/providers lists the agents.');
    return p;
  };
  return {
    async agentReadiness({ params }) {
      const p = provider(params.id);
      return { provider: signInInfo(p, await p.readiness(harness.env, { timeoutMs: TIMEOUT_MS })) };
    },
    async agentSignInMethods({ params }) {
      const p = provider(params.id);
      const agent = await startForSignIn(p, harness.env, { cwd: tmpdir(), timeoutMs: TIMEOUT_MS });
      await agent.client.close().catch(() => {});
      return { methods: agent.methods };
    },
    async agentLogin({ params, body }) {
      const p = provider(params.id);
      const { methodId } = body;
      // The agent starts in a neutral folder: signing in belongs to no workspace.
      const agent = await startForSignIn(p, harness.env, { cwd: tmpdir(), timeoutMs: TIMEOUT_MS });
      try {
        const m = agent.methods.find((x) => x.id === methodId);
        if (!m)
          throw new HttpError(
            'invalid_argument',
            `${p.label} has no sign-in method '${methodId}'`,
            `It lists: ${agent.methods.map((x) => x.id).join(', ') || 'none'}.`,
          );
        if (m.kind === 'terminal')
          throw new HttpError(
            'conflict',
            `${methodId} is a terminal sign-in: it runs ${p.label}'s own command, which needs a terminal`,
            `Open it in the readiness page's terminal panel, or run \`talaria login ${p.id} ${methodId}\` in a terminal.`,
          );
        if (m.kind === 'env_var')
          throw new HttpError(
            'invalid_argument',
            `${methodId} is a variable to set, not a sign-in to run`,
            `Put ${(m.vars ?? []).join(' or ')} in agents.${JSON.stringify(p.id)}.env of config.json.`,
          );
        try {
          await authenticateWith(agent, methodId, TIMEOUT_MS);
        } catch (e) {
          throw new HttpError('agent_error', `${p.label} refused the sign-in with ${methodId}: ${errorText(e)}`);
        }
      } finally {
        await agent.client.close().catch(() => {});
      }
      const r = await recheckSignIn(p, harness.env, { home: harness.home, timeoutMs: TIMEOUT_MS });
      o.onSignedIn?.();
      return { ok: true as const, provider: signInInfo(p, r) };
    },
  };
}
