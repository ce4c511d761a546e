import { useEffect, useRef, useState } from 'react';
import { describeError, type ProviderInfo, type WorkspaceInfo } from '../api/server.js';
import { authGapOf } from '../api/sign-in.js';
import type { AppState, AppStore } from '../state/app-store.js';
import { go, href } from '../router.js';
import { ProviderPill } from './pills.js';
import { SignInNeeded } from './sign-in-needed.js';
import { defaultAgent } from '../state/default-agent.js';
import { HermesProfilePicker, workspaceHermesProfile } from './hermes-profile.js';

/**
 * A split button: the workspace's default provider, and a menu of the others. A provider that
 * is not ready is shown disabled with "fix…", which opens the readiness panel.
 */
export function NewSessionButton({ store, app, workspace }: { store: AppStore; app: AppState; workspace: WorkspaceInfo }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  // The agent asked for a sign-in: the session waits for it, then is created again.
  const [signIn, setSignIn] = useState<{ provider: ProviderInfo; retry: string | undefined }>();
  const menuRef = useRef<HTMLDivElement>(null);
  // The same rule the Agents page states: the configured agent when ready, else the best ready one.
  const chosen = defaultAgent(app.providers, workspace.provider, app.defaultProvider);
  const def = chosen.id;
  const defInfo = app.providers.find((p) => p.id === def);
  // New Hermes sessions here run in the profile the workspace sets (the server applies it).
  const hermes = app.providers.find((p) => p.id === 'hermes');

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent): void => {
      if (!menuRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);

  const create = (provider: string | undefined): void => {
    setBusy(true);
    setErr(undefined);
    setOpen(false);
    store.client.api
      .createSession({ params: { id: workspace.id }, body: provider ? { provider } : {} })
      .then(({ snapshot }) => {
        store.upsertSession(snapshot.session);
        go(href.session(snapshot.session.id));
      })
      .catch(async (e: unknown) => {
        const d = describeError(e);
        const id = provider ?? def;
        const gap = d.code === 'not_ready' && id && app.role === 'controller' ? await authGapOf(id).catch(() => undefined) : undefined;
        if (gap) setSignIn({ provider: gap, retry: provider });
        else setErr(d.message);
      })
      .finally(() => setBusy(false));
  };

  return (
    <div className="split-btn" ref={menuRef}>
      <button
        type="button"
        className="split-main"
        disabled={busy || defInfo?.ready === false}
        onClick={() => create(def)}
        aria-label={`New session with ${chosen.label}`}
        title={`New session with ${chosen.label}. ${chosen.why}`}
      >
        {busy ? '…' : '+ New'}
      </button>
      <button type="button" className="split-toggle" aria-haspopup="menu" aria-expanded={open} aria-label="Choose the agent for a new session" onClick={() => setOpen((o) => !o)}>
        ▾
      </button>
      {open && (
        <div className="menu" role="menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          {app.providers.map((p) => (
            <div key={p.id} className="menu-row">
              <button type="button" role="menuitem" disabled={p.ready === false} onClick={() => create(p.id)} autoFocus={p.id === def}>
                <ProviderPill id={p.id} label={p.label} />
                {p.id === def && <span className="muted small"> default</span>}
                {p.id === 'hermes' && workspaceHermesProfile(workspace) && <span className="muted small"> · {workspaceHermesProfile(workspace)}</span>}
                {p.ready === false && <span className="muted small"> not ready</span>}
              </button>
              {p.ready === false && (
                <a className="fix-link" href={href.readiness + '?provider=' + encodeURIComponent(p.id)} onClick={() => setOpen(false)}>
                  fix…
                </a>
              )}
            </div>
          ))}
          {hermes && (
            <div className="menu-row menu-profile">
              <span className="small muted">Hermes profile</span>
              <HermesProfilePicker store={store} workspace={workspace} label={hermes.label} shown={workspaceHermesProfile(workspace) ?? 'active'} readOnly={false} />
            </div>
          )}
        </div>
      )}
      {signIn && (
        <SignInNeeded
          provider={signIn.provider}
          waiting="the new session"
          onCancel={() => setSignIn(undefined)}
          onSignedIn={() => {
            setSignIn(undefined);
            void store.loadReadiness(false);
            create(signIn.retry);
          }}
        />
      )}
      {err && (
        <p role="alert" className="error small split-err">
          {err}
        </p>
      )}
    </div>
  );
}
