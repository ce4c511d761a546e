import { useEffect, useState } from 'react';
import { describeError, type StoredRuleInfo } from '../api/server.js';
import { useApp, type AppStore } from '../state/app-store.js';

type Audit = Awaited<ReturnType<AppStore['client']['api']['audit']>>['records'][number];

/** Permission rules (global and per workspace) and the audit log of every decision. */
export function SettingsPage({ store }: { store: AppStore }) {
  const app = useApp(store);
  const [rules, setRules] = useState<StoredRuleInfo[]>([]);
  const [audit, setAudit] = useState<Audit[]>([]);
  const [err, setErr] = useState<string>();
  const [draft, setDraft] = useState({ scope: 'global' as 'global' | 'workspace', scopeId: '', decision: 'allow' as 'allow' | 'deny' | 'ask', toolKind: '', pathGlob: '', command: '' });
  const api = store.client.api;
  const load = (): void => {
    Promise.all([api.rules(), api.audit({ query: { limit: 200 } })])
      .then(([r, a]) => {
        setRules(r.rules);
        setAudit(a.records);
      })
      .catch((e: unknown) => setErr(describeError(e).message));
  };
  useEffect(load, []);
  const ro = app.role !== 'controller';
  const wsName = (id?: string): string => app.workspaces.find((w) => w.id === id)?.name ?? id ?? '';

  return (
    <div className="page">
      <h1>Settings</h1>
      {err && <p className="error" role="alert">{err}</p>}
      <h2>Permission rules</h2>
      <table className="table">
        <thead>
          <tr><th>Scope</th><th>Decision</th><th>Tool kind</th><th>Path</th><th>Command</th><th /></tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id}>
              <td>{r.scope}{r.scopeId ? `: ${r.scope === 'workspace' ? wsName(r.scopeId) : r.scopeId}` : ''}</td>
              <td className={r.rule.decision}>{r.rule.decision}</td>
              <td>{Array.isArray(r.rule.toolKind) ? r.rule.toolKind.join(', ') : r.rule.toolKind ?? 'any'}</td>
              <td className="mono small">{r.rule.pathGlob ?? ''}</td>
              <td className="mono small">{r.rule.command ?? ''}</td>
              <td>{!ro && <button type="button" className="link-btn" aria-label={`Delete rule ${r.id}`} onClick={() => api.deleteRule({ params: { id: String(r.id) } }).then(load).catch((e: unknown) => setErr(describeError(e).message))}>Delete</button>}</td>
            </tr>
          ))}
          {rules.length === 0 && <tr><td colSpan={6} className="muted">No rules yet: every tool call asks.</td></tr>}
        </tbody>
      </table>
      {!ro && (
        <form
          className="rule-form"
          onSubmit={(e) => {
            e.preventDefault();
            const rule = { decision: draft.decision, ...(draft.toolKind ? { toolKind: draft.toolKind } : {}), ...(draft.pathGlob ? { pathGlob: draft.pathGlob } : {}), ...(draft.command ? { command: draft.command } : {}), source: 'user' as const };
            // Cleared only once the rule is stored: a refused add keeps what was typed, next to its error.
            api
              .addRule({ body: { scope: draft.scope, ...(draft.scope === 'workspace' ? { scopeId: draft.scopeId } : {}), rule } })
              .then(() => {
                setErr(undefined);
                setDraft((d) => ({ ...d, decision: 'allow', toolKind: '', pathGlob: '', command: '' }));
                load();
              })
              .catch((x: unknown) => setErr(describeError(x).message));
          }}
        >
          <select aria-label="Scope" value={draft.scope} onChange={(e) => setDraft({ ...draft, scope: e.target.value as 'global' | 'workspace' })}>
            <option value="global">Global</option>
            <option value="workspace">Workspace</option>
          </select>
          {draft.scope === 'workspace' && (
            <select aria-label="Workspace" value={draft.scopeId} onChange={(e) => setDraft({ ...draft, scopeId: e.target.value })}>
              <option value="">—</option>
              {app.workspaces.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
            </select>
          )}
          <select aria-label="Decision" value={draft.decision} onChange={(e) => setDraft({ ...draft, decision: e.target.value as 'allow' | 'deny' | 'ask' })}>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
            <option value="ask">ask</option>
          </select>
          <input aria-label="Tool kind" placeholder="kind (edit, execute…)" value={draft.toolKind} onChange={(e) => setDraft({ ...draft, toolKind: e.target.value })} />
          <input aria-label="Path glob" placeholder="path glob" value={draft.pathGlob} onChange={(e) => setDraft({ ...draft, pathGlob: e.target.value })} />
          <input aria-label="Command pattern" placeholder="command" value={draft.command} onChange={(e) => setDraft({ ...draft, command: e.target.value })} />
          <button type="submit">Add rule</button>
        </form>
      )}
      <h2>Audit log</h2>
      <table className="table">
        <thead>
          <tr><th>When</th><th>Session</th><th>Decided by</th><th>Answer</th><th>Reason</th></tr>
        </thead>
        <tbody>
          {audit.map((a) => (
            <tr key={a.id}>
              <td className="small">{new Date(a.at).toLocaleString()}</td>
              <td className="mono small">{a.sessionId?.slice(0, 8)}</td>
              <td>{a.decidedBy}{a.answeredBy ? ` (${a.answeredBy})` : ''}</td>
              <td>{a.optionKind ?? JSON.stringify(a.outcome)}</td>
              <td className="small">{a.reason}</td>
            </tr>
          ))}
          {audit.length === 0 && <tr><td colSpan={5} className="muted">No decisions yet.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
