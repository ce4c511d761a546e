import { useEffect, useState } from 'react';
import { describeError } from '../api/server.js';
import type { AppStore } from '../state/app-store.js';
import { formatCost, formatCostTotal } from '../components/format.js';
import { href } from '../router.js';

type By = 'agent' | 'workspace' | 'day';
type Report = Awaited<ReturnType<AppStore['client']['api']['usage']>>;

const n = (v: number): string => v.toLocaleString('en-US');
const BY: readonly { id: By; label: string }[] = [
  { id: 'agent', label: 'Agent' },
  { id: 'workspace', label: 'Workspace' },
  { id: 'day', label: 'Day (UTC)' },
];

/**
 * Tokens and cost of every stored session, totalled by agent, workspace or day — what `talaria
 * usage` prints. Hermes' figures are its own (state.db); where no price is known it says so.
 */
export function UsagePage({ store }: { store: AppStore }) {
  const [by, setBy] = useState<By>('agent');
  const [report, setReport] = useState<Report>();
  const [err, setErr] = useState<string>();
  useEffect(() => {
    let live = true;
    store.client.api
      .usage({ query: { by } })
      .then((r) => live && (setReport(r), setErr(undefined)))
      .catch((e: unknown) => live && setErr(describeError(e).message));
    return () => {
      live = false;
    };
  }, [store, by]);
  const top = report ? [...report.sessions].sort((a, b) => b.tokens.total - a.tokens.total).slice(0, 10) : [];
  return (
    <div className="page usage-page">
      <h1>Usage</h1>
      <p className="muted">
        Tokens and cost of every stored session. Hermes sessions: as Hermes records them in its own state.db (read-only). Other agents: the tokens
        Talaria stored, and a cost only where the agent sent one. An unknown price says “no price”, never $0.
      </p>
      <div className="usage-by" role="radiogroup" aria-label="Total by">
        {BY.map((b) => (
          <label key={b.id} className={by === b.id ? 'on' : ''}>
            <input type="radio" name="usage-by" value={b.id} checked={by === b.id} onChange={() => setBy(b.id)} /> {b.label}
          </label>
        ))}
      </div>
      {err && (
        <p className="error" role="alert">
          {err}
        </p>
      )}
      {report?.problems.map((p) => (
        <p key={p} className="notice" role="note">
          {p}
        </p>
      ))}
      {report && (
        <table className="table usage-table">
          <caption className="sr-only">Usage by {by}</caption>
          <thead>
            <tr>
              <th scope="col">{BY.find((b) => b.id === by)?.label}</th>
              <th scope="col">Sessions</th>
              <th scope="col" className="wide">Input</th>
              <th scope="col" className="wide">Output</th>
              <th scope="col">Total</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {report.groups.map((g) => (
              <tr key={g.key}>
                <td className={by === 'workspace' ? 'mono small' : ''}>{g.key}</td>
                <td>{g.sessions}</td>
                <td className="wide">{n(g.tokens.input)}</td>
                <td className="wide">{n(g.tokens.output)}</td>
                <td>{n(g.tokens.total)}</td>
                <td>{formatCostTotal(g.cost)}</td>
              </tr>
            ))}
            {report.groups.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No sessions yet.
                </td>
              </tr>
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{report.total.sessions}</td>
              <td className="wide">{n(report.total.tokens.input)}</td>
              <td className="wide">{n(report.total.tokens.output)}</td>
              <td>{n(report.total.tokens.total)}</td>
              <td>{formatCostTotal(report.total.cost)}</td>
            </tr>
          </tfoot>
        </table>
      )}
      {top.length > 0 && (
        <>
          <h2>Largest sessions</h2>
          <table className="table usage-table">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Agent</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
                <th scope="col" className="wide">From</th>
              </tr>
            </thead>
            <tbody>
              {top.map((s) => (
                <tr key={s.sessionId}>
                  <td>
                    <a href={href.session(s.sessionId)}>{s.title ?? s.sessionId.slice(0, 8)}</a>
                  </td>
                  <td>{s.profile ? `${s.provider} (${s.profile})` : s.provider}</td>
                  <td>{n(s.tokens.total)}</td>
                  <td>{formatCost(s.cost)}</td>
                  <td className="muted small wide">{s.from === 'hermes-state-db' ? 'Hermes’ state.db' : 'Talaria'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
