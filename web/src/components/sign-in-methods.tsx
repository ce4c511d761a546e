import { useEffect, useState } from 'react';
import { FixText } from './copy-command.js';
import type { ProviderInfo } from '../api/server.js';
import { signInMethods, signInWithAgent, type AuthMethodInfo } from '../api/sign-in.js';

export type { AuthMethodInfo as SignInMethod } from '../api/sign-in.js';
type SignInMethod = AuthMethodInfo;

/**
 * The sign-in methods of an agent's `auth` gap: an agent method signs in through the POST; a
 * terminal method opens the terminal panel (the page holds it: it outlives the gap); a variable to set only says where.
 */
export function SignInMethods({
  provider,
  methods,
  canAct,
  onSignedIn,
  onTerminal,
}: {
  provider: ProviderInfo;
  methods: SignInMethod[];
  canAct: boolean;
  onSignedIn(p: ProviderInfo): void;
  onTerminal(m: SignInMethod): void;
}) {
  const [busy, setBusy] = useState<string>();
  // The gap's list came from an everyday session (no terminal auth offered): ask as a sign-in does.
  const [listed, setListed] = useState<SignInMethod[]>();
  useEffect(() => {
    if (!canAct) return;
    signInMethods(provider.id)
      .then(setListed)
      .catch(() => undefined);
  }, [provider.id, canAct]);
  const [failure, setFailure] = useState<{ message: string; fix?: string | undefined }>();
  const signIn = (m: SignInMethod): void => {
    setFailure(undefined);
    if (m.kind === 'terminal') return onTerminal(m);
    setBusy(m.id);
    signInWithAgent(provider.id, m.id)
      .then(onSignedIn)
      .catch((e: unknown) => setFailure({ message: (e as Error).message, fix: (e as { fix?: string }).fix }))
      .finally(() => setBusy(undefined));
  };
  return (
    <div className="sign-in">
      <ul className="sign-in-methods" aria-label={`Sign-in methods of ${provider.label}`}>
        {(listed ?? methods).map((m) => (
          <li key={m.id}>
            <span>{m.name}</span> <span className="muted small">({m.kind === 'env_var' ? `set ${(m.vars ?? []).join(' or ')}` : m.kind})</span>
            {m.description && <span className="muted small"> — {m.description}</span>}{' '}
            {m.kind !== 'env_var' && (
              <button type="button" disabled={!canAct || busy !== undefined} onClick={() => signIn(m)} aria-label={`Sign in to ${provider.label} with ${m.name}`}>
                {busy === m.id ? 'Signing in…' : 'Sign in'}
              </button>
            )}
          </li>
        ))}
      </ul>
      {failure && (
        <div className="error" role="alert">
          <p>Not signed in: {failure.message}</p>
          <FixText fix={failure.fix} />
        </div>
      )}
    </div>
  );
}
