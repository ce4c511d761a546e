import { useEffect, useState } from 'react';
import { useApp, type AppStore } from './state/app-store.js';
import { href, useRoute } from './router.js';
import { Sidebar } from './components/sidebar.js';
import { SessionPage } from './pages/session-page.js';
import { InspectorPage } from './lazy.js';
import { ReadinessPage } from './pages/readiness-page.js';
import { SettingsPage } from './pages/settings-page.js';
import { UsagePage } from './pages/usage-page.js';
import { HermesSessionPage, HermesSessionsPage } from './pages/hermes-sessions-page.js';

/** Sidebar + the page of the route. The tab title carries the count of approvals waiting. */
export function Shell({ store }: { store: AppStore }) {
  const app = useApp(store);
  const route = useRoute();
  const [navOpen, setNavOpen] = useState(false);
  const waiting = app.sessions.filter((s) => s.needsAttention).length;
  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) Talaria — approval needed` : 'Talaria';
  }, [waiting]);
  useEffect(() => setNavOpen(false), [route]);
  const current = route.page === 'session' || route.page === 'inspector' ? route.id : undefined;

  return (
    <div className={`shell ${navOpen ? 'nav-open' : ''}`}>
      <a className="skip" href="#main">Skip to the conversation</a>
      <Sidebar store={store} app={app} current={current} />
      <div className="main-col">
        <div className="topbar-mobile">
          <button type="button" className="icon-btn" aria-label="Sessions" aria-expanded={navOpen} onClick={() => setNavOpen((o) => !o)}>
            ☰
          </button>
          <span className="brand">Talaria</span>
          {waiting > 0 && <span className="badge" aria-label={`${waiting} approvals waiting`}>{waiting}</span>}
        </div>
        {!app.connected && <div className="conn-banner" role="status">Reconnecting to the server…</div>}
        {app.role === 'observer' && (
          <div className="observer-banner" role="note">
            Read-only link: you can watch this server’s sessions, not act in them.
          </div>
        )}
        <main id="main" className="main" tabIndex={-1}>
          {/* The inspector opens beside the conversation (same place in the tree: the session stays mounted). */}
          {(route.page === 'session' || route.page === 'inspector') && (
            <div className={route.page === 'inspector' ? 'with-inspector' : 'session-only'}>
              <SessionPage key={route.id} store={store} id={route.id} />
              {route.page === 'inspector' && (
                <aside className="inspector-panel" aria-label="Protocol inspector">
                  <InspectorPage key={route.id} store={store} id={route.id} />
                </aside>
              )}
            </div>
          )}
          {route.page === 'readiness' && <ReadinessPage store={store} />}
          {route.page === 'settings' && <SettingsPage store={store} />}
          {route.page === 'usage' && <UsagePage store={store} />}
          {route.page === 'hermes' && <HermesSessionsPage store={store} />}
          {route.page === 'hermes-session' && <HermesSessionPage key={`${route.profile}/${route.id}`} store={store} profile={route.profile} id={route.id} />}
          {route.page === 'home' && <Home app={app} />}
        </main>
      </div>
    </div>
  );
}

function Home({ app }: { app: ReturnType<typeof useApp> }) {
  return (
    <div className="home">
      <h1>Talaria</h1>
      <p>One harness for ACP coding agents. Pick a session on the left, or start a new one.</p>
      {app.workspaces.length === 0 && <p className="muted">No workspace yet: open a folder with the “Open folder” button.</p>}
      <p>
        <a href={href.readiness}>Agents and readiness</a> · <a href={href.usage}>Usage and cost</a> · <a href={href.settings}>Permission rules and audit log</a>
      </p>
    </div>
  );
}
