import { useState } from 'react';
import type { ProviderInfo } from '../api/server.js';
import { gapAuthMethods } from '../api/sign-in.js';
import { SignInMethods, type SignInMethod } from './sign-in-methods.js';
import { SignInTerminal } from '../lazy.js';
import './sign-in.css';

/**
 * What an action that met `auth_required` shows (issue 13): the agent's sign-in methods (terminal
 * ones included) and, for a terminal method, the terminal panel. `onSignedIn` runs once the server
 * checked the agent ready again; the caller retries what was waiting (the session, the prompt).
 */
export function SignInNeeded({ provider, waiting, onSignedIn, onCancel }: { provider: ProviderInfo; waiting: string; onSignedIn(): void; onCancel(): void }) {
  const [terminal, setTerminal] = useState<SignInMethod>();
  const gap = provider.gaps.find((g) => g.code === 'auth');
  const done = (p: ProviderInfo): void => {
    if (p.ready !== false) onSignedIn();
  };
  return (
    <div className="sign-in-needed" role="dialog" aria-label={`Sign in to ${provider.label}`}>
      <div className="sign-in-head">
        <strong>Sign in to {provider.label}</strong>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p className="small">{gap?.message ?? `${provider.label} needs you to sign in.`}</p>
      <p className="muted small">After the sign-in, {waiting} continues by itself.</p>
      <SignInMethods provider={provider} methods={gap ? gapAuthMethods(gap) : []} canAct onSignedIn={done} onTerminal={setTerminal} />
      {terminal && (
        <SignInTerminal
          key={terminal.id}
          providerId={provider.id}
          label={provider.label}
          methodId={terminal.id}
          methodName={terminal.name}
          onSignedIn={done}
          onClose={() => setTerminal(undefined)}
        />
      )}
    </div>
  );
}
