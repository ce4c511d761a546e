import { useMemo, useState, type MouseEvent } from 'react';
import type { AppState, AppStore } from '../state/app-store.js';
import type { SessionSummaryInfo, WorkspaceInfo } from '../api/server.js';
import { href } from '../router.js';
import { ProviderPill, StatusDot, statusOf } from './pills.js';
import { NewSessionButton } from './new-session.js';
import { OpenFolder } from './open-folder.js';
import { ago } from './format.js';

/** Workspaces → sessions: title, provider pill, status dot, last activity, preview; search; archived filter. */
export function Sidebar({ store, app, current }: { store: AppStore; app: AppState; current: string | undefined }) {
  const [q, setQ] = useState('');
  const [archived, setArchived] = useState(false);
  const ready = useMemo(() => new Map(app.providers.map((p) => [p.id, p.ready])), [app.providers]);
  const labels = useMemo(() => new Map(app.providers.map((p) => [p.id, p.label])), [app.providers]);
  const shown = app.sessions.filter(
    // An archived session that never held a message (one replaced by another agent's) is not worth a row.
    (s) =>
      s.archived === archived &&
      !(s.archived && !s.title && !s.preview) &&
      (q === '' || (s.title ?? '').toLowerCase().includes(q.toLowerCase()) || (s.preview ?? '').toLowerCase().includes(q.toLowerCase())),
  );
  const groups = groupByWorkspace(app.workspaces, shown);

  return (
    <nav className="sidebar" aria-label="Workspaces and sessions">
      <div className="sidebar-head">
        <a className="brand" href={href.home}>
          <span aria-hidden="true">◆</span> Talaria
        </a>
        {app.label && <span className="muted small">{app.label}</span>}
      </div>
      <div className="sidebar-tools">
        <input type="search" placeholder="Search sessions" aria-label="Search sessions by title" value={q} onChange={(e) => setQ(e.target.value)} />
        <label className="check small">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Archived
        </label>
      </div>
      <div className="sidebar-scroll">
        {groups.map(({ ws, sessions }) => (
          <section key={ws?.id ?? 'other'} className="ws-group" aria-label={ws ? `Workspace ${ws.name}` : 'Other sessions'}>
            <header className="ws-head">
              <span className="ws-name" title={ws?.path}>
                {ws?.name ?? 'Other'}
              </span>
              {ws && app.role === 'controller' && <NewSessionButton store={store} app={app} workspace={ws} />}
            </header>
            <ul className="session-list">
              {sessions.map((s) => {
                if (!s.stored) return <AgentOnlyItem key={s.id} store={store} s={s} label={labels.get(s.provider)} canOpen={app.role === 'controller'} />;
                const st = statusOf(s, ready.get(s.provider));
                return (
                  <li key={s.id}>
                    <a
                      className={`session-item ${current === s.id ? 'current' : ''}`}
                      href={href.session(s.id)}
                      aria-current={current === s.id ? 'page' : undefined}
                      data-session={s.id}
                    >
                      <span className="session-line1">
                        <StatusDot status={st} failure={s.failure} />
                        <span className="session-title">{s.title || 'New session'}</span>
                        {s.needsAttention && (
                          <span className="badge small" aria-label="approval waiting">
                            !
                          </span>
                        )}
                      </span>
                      <span className="session-line2">
                        <ProviderPill id={s.provider} label={labels.get(s.provider)} />
                        <span className="muted small">{s.updatedAt ? ago(s.updatedAt) : ''}</span>
                      </span>
                      {s.preview && <span className="session-preview muted small">{s.preview}</span>}
                    </a>
                  </li>
                );
              })}
              {sessions.length === 0 && <li className="muted small pad">{archived ? 'No archived sessions' : 'No sessions yet'}</li>}
            </ul>
          </section>
        ))}
      </div>
      <div className="sidebar-foot">
        {app.role === 'controller' && <OpenFolder store={store} />}
        <a href={href.readiness}>Agents</a>
        <a href={href.settings}>Settings</a>
        <NotifyButton />
      </div>
    </nav>
  );
}

/**
 * A session only the agent lists (its own history, never stored here), marked as such. A click
 * opens it through the server (the agent loads or resumes it, Talaria stores it) and shows it.
 */
function AgentOnlyItem({ store, s, label, canOpen }: { store: AppStore; s: SessionSummaryInfo; label: string | undefined; canOpen: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const open = (e: MouseEvent) => {
    e.preventDefault();
    if (busy || !canOpen) return;
    setBusy(true);
    setError(undefined);
    store.openAgentSession(s).then(
      (id) => {
        window.location.hash = href.session(id);
      },
      (err: unknown) => {
        const fix = (err as { fix?: string }).fix;
        setError(`${err instanceof Error ? err.message : String(err)}${fix ? ` ${fix}` : ''}`);
        setBusy(false);
      },
    );
  };
  const who = label ?? s.provider;
  return (
    <li>
      <a
        className="session-item agent-only"
        href={href.session(s.id)}
        data-session={s.id}
        data-agent-only="true"
        aria-busy={busy || undefined}
        title={canOpen ? `Only ${who} has this session: opening it stores it in Talaria` : `Only ${who} has this session (an observer cannot open it)`}
        onClick={open}
      >
        <span className="session-line1">
          <StatusDot status="stored" />
          <span className="session-title">{s.title || s.id}</span>
        </span>
        <span className="session-line2">
          <ProviderPill id={s.provider} label={label} />
          <span className="pill pill-slate">at agent</span>
          <span className="muted small">{busy ? 'Opening…' : s.updatedAt ? ago(s.updatedAt) : ''}</span>
        </span>
        <span className="session-preview muted small">{`In ${who}'s history, not yet in Talaria`}</span>
      </a>
      {error && (
        <p className="error small pad" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/** Browser notifications when the tab is hidden (approval needed, turn ended): asked on a click. */
function NotifyButton() {
  const [perm, setPerm] = useState(() => ('Notification' in window ? Notification.permission : 'denied'));
  if (perm !== 'default') return null;
  return (
    <button type="button" className="link-btn small" onClick={() => void Notification.requestPermission().then(setPerm)}>
      Notify me
    </button>
  );
}

function groupByWorkspace(workspaces: WorkspaceInfo[], sessions: SessionSummaryInfo[]) {
  const byId = new Map<string, SessionSummaryInfo[]>();
  const byPath = new Map(workspaces.map((w) => [w.path, w.id]));
  const rest: SessionSummaryInfo[] = [];
  for (const s of sessions) {
    const wid = s.workspaceId ?? byPath.get(s.cwd);
    if (wid && workspaces.some((w) => w.id === wid)) byId.set(wid, [...(byId.get(wid) ?? []), s]);
    else rest.push(s);
  }
  const out: { ws: WorkspaceInfo | undefined; sessions: SessionSummaryInfo[] }[] = workspaces.map((ws) => ({ ws, sessions: byId.get(ws.id) ?? [] }));
  if (rest.length) out.push({ ws: undefined, sessions: rest });
  return out;
}
