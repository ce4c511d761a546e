import { useEffect, useId, useRef, useState } from 'react';
import { describeError, type WorkspaceInfo } from '../api/server.js';
import type { AppStore } from '../state/app-store.js';

interface Listing {
  profiles: { name: string; model?: string | undefined }[];
  problem?: string | undefined;
  workspace?: { profile?: string | undefined; own: boolean; ownName: string } | undefined;
}

/** What new Hermes sessions of the workspace use, in a few words (undefined: Hermes' active profile). */
export function workspaceHermesProfile(ws: WorkspaceInfo | undefined): string | undefined {
  return ws?.ownProfile ?? ws?.profile;
}

/**
 * The Hermes pill as a button: which profile new Hermes sessions of this workspace use — Hermes'
 * active one, a named one, or the workspace's own (`talaria-<folder>-<hash>`, made by its first
 * Hermes session). `shown` is what the pill says (a session's own profile in its header).
 */
export function HermesProfilePicker({
  store,
  workspace,
  label,
  shown,
  readOnly,
}: {
  store: AppStore;
  workspace: WorkspaceInfo;
  label: string;
  shown: string | undefined;
  readOnly: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [list, setList] = useState<Listing>();
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const api = store.client.api;

  useEffect(() => {
    if (!open) return;
    let live = true;
    api.hermesProfiles({ query: { workspace: workspace.id } }).then(
      (r) => live && setList(r),
      (e: unknown) => live && setErr(describeError(e).message),
    );
    const close = (e: MouseEvent): void => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => {
      live = false;
      document.removeEventListener('mousedown', close);
    };
  }, [open, api, workspace.id]);

  const change = (body: { profile?: string | null; own?: boolean }): void => {
    setBusy(true);
    setErr(undefined);
    // Shown at once; the server's answer (or the error, with the list read again) follows.
    setList((l) => {
      if (!l?.workspace) return l;
      const own = body.own ?? (body.profile !== undefined ? false : l.workspace.own);
      const profile = own
        ? l.workspace.ownName
        : body.profile !== undefined
          ? (body.profile ?? undefined)
          : l.workspace.profile;
      return { ...l, workspace: { ...l.workspace, own, profile } };
    });
    api
      .setWorkspaceProfile({ params: { id: workspace.id }, body })
      .then(async ({ workspace: w }) => {
        store.upsertWorkspace(w);
        setList(await api.hermesProfiles({ query: { workspace: workspace.id } }));
      })
      .catch((e: unknown) => {
        setErr(describeError(e).message);
        void api.hermesProfiles({ query: { workspace: workspace.id } }).then(setList, () => undefined);
      })
      .finally(() => setBusy(false));
  };

  const own = list?.workspace?.own ?? workspace.ownProfile !== undefined;
  const current = own ? undefined : (list?.workspace?.profile ?? workspace.profile);
  const ownName = list?.workspace?.ownName;
  const named = (list?.profiles ?? []).filter((p) => p.name !== 'default' && p.name !== ownName);
  const ownExists = ownName !== undefined && list?.profiles.some((p) => p.name === ownName);

  return (
    <div className="profile-picker" ref={box} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button
        type="button"
        className="pill pill-amber pill-btn"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={`${label}${shown ? ` · ${shown}` : ''}, Hermes profile for new sessions in ${workspace.name}`}
        title={`${shown ? `Profile ${shown}. ` : ''}Hermes profile for new sessions in ${workspace.name}`}
        onClick={() => setOpen((o) => !o)}
      >
        {label}
        {shown && <span className="pill-detail">· {shown}</span>} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div className="menu profile-menu" role="dialog" aria-labelledby={titleId}>
          <p id={titleId} className="small profile-title">
            Hermes profile for new sessions in <b>{workspace.name}</b>
          </p>
          {!list && !err && (
            <p className="muted small" role="status">
              Reading Hermes' profiles…
            </p>
          )}
          {list && (
            <>
              <label className="check small profile-own">
                <input
                  type="checkbox"
                  checked={own}
                  disabled={readOnly || busy}
                  onChange={(e) => change({ own: e.target.checked })}
                />{' '}
                Own profile for this workspace
              </label>
              <p className="muted small profile-note">
                <code>{ownName}</code> —{' '}
                {ownExists
                  ? 'its own config, .env, SOUL.md, skills and memories'
                  : 'cloned from the active profile by its first Hermes session'}
              </p>
              <fieldset className="profile-list" disabled={readOnly || busy || own}>
                <legend className="small">Or a profile of Hermes</legend>
                <label className="check small">
                  <input
                    type="radio"
                    name={`${titleId}-p`}
                    checked={!own && !current}
                    onChange={() => change({ profile: null })}
                  />{' '}
                  Hermes' active profile
                </label>
                {named.map((p) => (
                  <label key={p.name} className="check small">
                    <input
                      type="radio"
                      name={`${titleId}-p`}
                      checked={!own && current === p.name}
                      onChange={() => change({ profile: p.name })}
                    />{' '}
                    {p.name}
                    {p.model && <span className="muted"> · {p.model}</span>}
                  </label>
                ))}
              </fieldset>
              {list.problem && <p className="muted small">{list.problem}</p>}
            </>
          )}
          {err && (
            <p role="alert" className="error small">
              {err}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
