import { useMemo, useState } from 'react';
import type { AppState, AppStore } from '../state/app-store.js';
import type { SessionSummaryInfo, WorkspaceInfo } from '../api/server.js';
import { href } from '../router.js';
import { NewSessionButton } from './new-session.js';
import { OpenFolder } from './open-folder.js';
import { AgentOnlyItem, SessionItem, type RowContext } from './session-row.js';
import { sessionTrees } from '../state/session-tree.js';

/** Workspaces → sessions: title, provider pill, status dot, last activity, preview; search; archived filter. */
export function Sidebar({ store, app, current }: { store: AppStore; app: AppState; current: string | undefined }) {
  const [q, setQ] = useState('');
  const [archived, setArchived] = useState(false);
  const [showGone, setShowGone] = useState(false);
  const ready = useMemo(() => new Map(app.providers.map((p) => [p.id, p.ready])), [app.providers]);
  const labels = useMemo(() => new Map(app.providers.map((p) => [p.id, p.label])), [app.providers]);
  const shown = app.sessions.filter(
    // An archived session that never held a message (one replaced by another agent's) is not worth a row.
    (s) =>
      s.archived === archived &&
      !(s.archived && !s.title && !s.preview) &&
      (q === '' || (s.title ?? '').toLowerCase().includes(q.toLowerCase()) || (s.preview ?? '').toLowerCase().includes(q.toLowerCase())),
  );
  const agentLabel = (id: string): string => labels.get(id) ?? id;
  const rowCtx: RowContext = { current, ready, labels };
  // Workspaces whose folder is gone (scratch folders of earlier runs) stay out of the way, unless open now.
  const all = groupByWorkspace(app.workspaces, shown);
  const isGone = (g: (typeof all)[number]): boolean => g.ws?.missing === true && !g.sessions.some((s) => s.id === current);
  const gone = all.filter(isGone).length;
  // Shown, they come last, by their toggle.
  const groups = [...all.filter((g) => !isGone(g)), ...(showGone ? all.filter(isGone) : [])];

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
              {ws?.missing && (
                <span className="ws-gone small" title={`${ws.path} no longer exists`}>
                  folder gone
                </span>
              )}
              {/* No new session in a folder that is gone. */}
              {ws && !ws.missing && app.role === 'controller' && <NewSessionButton store={store} app={app} workspace={ws} />}
            </header>
            <ul className="session-list">
              {sessionTrees(sessions, agentLabel).map((n) =>
                n.s.stored ? (
                  <SessionItem key={n.s.id} node={n} ctx={rowCtx} />
                ) : (
                  <AgentOnlyItem key={n.s.id} store={store} s={n.s} label={labels.get(n.s.provider)} canOpen={app.role === 'controller'} />
                ),
              )}
              {sessions.length === 0 && <li className="muted small pad">{archived ? 'No archived sessions' : 'No sessions yet'}</li>}
            </ul>
          </section>
        ))}
        {gone > 0 && (
          <button type="button" className="link-btn small ws-gone-toggle" aria-expanded={showGone} onClick={() => setShowGone((v) => !v)}>
            {showGone ? 'Hide workspaces whose folder is gone' : `Show ${gone} hidden workspace${gone === 1 ? '' : 's'} (folder gone)`}
          </button>
        )}
      </div>
      <div className="sidebar-foot">
        {app.role === 'controller' && <OpenFolder store={store} />}
        <a href={href.readiness}>Agents</a>
        <a href={href.usage}>Usage</a>
        <a href={href.hermesList}>Other Hermes sessions</a>
        <a href={href.settings}>Settings</a>
        <NotifyButton />
      </div>
    </nav>
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
