import { useEffect, useState } from 'react';
import { describeError, type ProviderInfo } from '../api/server.js';
import { useApp, type AppStore } from '../state/app-store.js';
import type { SignInMethod } from '../components/sign-in-methods.js';
import { SignInTerminal } from '../lazy.js';
import { AgentCard } from '../components/agent-card.js';
import { foldInstallGroup, GROUPS, groupOf, registryEntryFor, type AgentGroup } from '../state/agent-groups.js';
import type { RegistryIndexInfo } from '../api/registry.js';
import { RegistryList } from '../components/registry-list.js';
import { defaultAgent } from '../state/default-agent.js';

/** Every agent, its gaps and the fix for each; the default provider per workspace. */
export function ReadinessPage({ store }: { store: AppStore }) {
  const app = useApp(store);
  const [providers, setProviders] = useState<ProviderInfo[]>();
  const [problems, setProblems] = useState<string[]>([]);
  const [err, setErr] = useState<string>();
  const [panel, setPanel] = useState<{ providerId: string; method: SignInMethod }>();
  const labelOf = (id: string): string => app.providers.find((p) => p.id === id)?.label ?? id;
  const focus = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('provider');
  const load = (refresh: boolean): void => {
    store.client.api
      .readiness({ query: refresh ? { refresh: 'true' } : {} })
      .then((r) => {
        setProviders(r.providers);
        setProblems(r.problems);
      })
      .catch((e: unknown) => setErr(describeError(e).message));
  };
  useEffect(() => load(false), []);
  const [index, setIndex] = useState<RegistryIndexInfo>();
  const [regKey, setRegKey] = useState(0);
  // After an add or a remove: this page's agents, the registry list and the new-session menu follow (the server's agents already did).
  const changed = (): void => {
    load(false);
    void store.refresh().then(() => store.loadReadiness(false));
  };
  // An agent installed moves to its new group: the keyboard focus goes with it.
  const [moved, setMoved] = useState<string>();
  useEffect(() => {
    if (moved) document.getElementById(`provider-${moved}`)?.focus();
  }, [providers, moved]);
  // An agent being signed in to stays in its group (its terminal and outcome with it) until closed or checked again.
  const [held, setHeld] = useState<Record<string, AgentGroup>>({});
  const hold = (p: ProviderInfo): void => setHeld((h) => ({ ...h, [p.id]: h[p.id] ?? groupOf(p) }));
  const release = (id: string): void => setHeld(({ [id]: _, ...rest }) => rest);
  // A sign-in ends with readiness checked for real: that agent's row is replaced, the gap goes.
  const signedIn = (p: ProviderInfo): void => {
    setProviders((all) => all?.map((x) => (x.id === p.id ? p : x)));
    // The new-session menu follows (the server's cached readiness is stale after a sign-in).
    void store.loadReadiness(false);
  };
  // "fix…" from the new-session menu lands here: bring that agent into view.
  useEffect(() => {
    if (focus && providers) document.getElementById(`provider-${focus}`)?.scrollIntoView({ block: 'center' });
  }, [focus, providers]);
  const card = (p: ProviderInfo) => (
    <AgentCard
      key={p.id}
      p={p}
      group={groupOf(p)}
      focus={focus === p.id}
      canAct={app.role === 'controller'}
      entry={registryEntryFor(p, index?.agents)}
      onSignedIn={signedIn}
      onTerminal={(m) => {
        hold(p);
        setPanel({ providerId: p.id, method: m });
      }}
      onInstalled={() => {
        changed();
        setMoved(p.id);
        // The registry list below shows the new install too.
        setRegKey((k) => k + 1);
      }}
    >
      {panel?.providerId === p.id && (
        <SignInTerminal
          key={panel.method.id}
          providerId={p.id}
          label={p.label}
          methodId={panel.method.id}
          methodName={panel.method.name}
          onSignedIn={signedIn}
          onClose={() => {
            setPanel(undefined);
            release(p.id);
          }}
        />
      )}
    </AgentCard>
  );
  return (
    <div className="page">
      <h1>Agents and readiness</h1>
      <button
        type="button"
        onClick={() => {
          setHeld({});
          load(true);
        }}
      >
        Check again
      </button>
      {err && (
        <p className="error" role="alert">
          {err}
        </p>
      )}
      {problems.map((p, i) => (
        <p key={i} className="note">
          {p}
        </p>
      ))}
      {!providers && !err && <p role="status">Checking agents…</p>}
      {GROUPS.map(({ id, title }) => {
        const members = (providers ?? []).filter((p) => (held[p.id] ?? groupOf(p)) === id);
        if (members.length === 0) return null;
        const { shown, folded } =
          id === 'install'
            ? foldInstallGroup(members, (p) => !!p.npmPackage || !!registryEntryFor(p, index?.agents), focus)
            : { shown: members, folded: [] };
        return (
          <section key={id} className="agent-group" aria-labelledby={`group-${id}`}>
            <h2 id={`group-${id}`}>
              {title} <span className="muted small">({members.length})</span>
            </h2>
            <ul className="ready-list">{shown.map(card)}</ul>
            {folded.length > 0 && (
              <details className="agent-fold">
                <summary>
                  {folded.length} more to install by hand: {folded.map((p) => p.label).join(', ')}
                </summary>
                <ul className="ready-list">{folded.map(card)}</ul>
              </details>
            )}
          </section>
        );
      })}
      <h2 className="section-head">Default agent per workspace</h2>
      <p className="muted small">
        New sessions use the agent chosen for the workspace, else the default in config.json
        {app.defaultProvider ? ` (${labelOf(app.defaultProvider)})` : ''} — when that agent is ready. Otherwise they use
        the best ready agent.
      </p>
      <table className="table default-table">
        <tbody>
          {app.workspaces.map((w) => {
            const d = defaultAgent(app.providers, w.provider, app.defaultProvider);
            return (
              <tr key={w.id}>
                <td>{w.name}</td>
                <td className="mono small">{w.path}</td>
                <td>
                  <select
                    aria-label={`Default agent for ${w.name}`}
                    value={w.provider ?? ''}
                    disabled={app.role !== 'controller'}
                    onChange={(e) =>
                      store.client.api
                        .bindProvider({ params: { id: w.id }, body: { provider: e.target.value } })
                        .then(() => store.refresh())
                        .catch((x: unknown) => setErr(describeError(x).message))
                    }
                  >
                    <option value="">
                      {app.defaultProvider
                        ? `Automatic (config.json: ${labelOf(app.defaultProvider)})`
                        : 'Automatic (the best ready agent)'}
                    </option>
                    {app.providers.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.label}
                        {p.ready === false ? ' (not ready)' : ''}
                      </option>
                    ))}
                  </select>
                  <div className="default-now" data-workspace={w.id}>
                    New sessions: <strong>{d.label}</strong> <span className="muted small">— {d.why}</span>
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <RegistryList key={regKey} canAct={app.role === 'controller'} onIndex={setIndex} onChanged={changed} />
    </div>
  );
}
