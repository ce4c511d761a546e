import { useEffect, useState } from 'react';
import { addRegistryAgent, readRegistry, removeRegistryAgent, updateRegistryAgent, type RegistryAgentInfo, type RegistryIndexInfo } from '../api/registry.js';
import { CopyCommand, FixText } from './copy-command.js';
import './sign-in.css';

type Index = RegistryIndexInfo;
type Busy = 'add' | 'update' | 'remove';
interface Outcome {
  ok: boolean;
  message: string;
  fix?: string | undefined;
}

const age = (ms: number) => (ms < 60_000 ? 'just now' : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min ago` : `${Math.round(ms / 3_600_000)} h ago`);
const BUSY_TEXT: Record<Busy, string> = { add: 'Installing…', update: 'Updating…', remove: 'Removing…' };

/**
 * The ACP Registry's agents (issue 13): name, description, version, license and icon from the
 * index the server caches, a search, and which are installed here. A controller adds, updates and
 * removes them; the server's agents follow at once, and `onChanged` lets the page's lists follow.
 */
export function RegistryList({ canAct, onChanged, onIndex }: { canAct: boolean; onChanged(): void; onIndex?(i: Index): void }) {
  const [index, setIndex] = useState<Index>();
  const [err, setErr] = useState<string>();
  const [q, setQ] = useState('');
  const [busy, setBusy] = useState<Record<string, Busy>>({});
  const [outcome, setOutcome] = useState<Record<string, Outcome>>({});
  const reload = (): void => {
    readRegistry()
      .then((i) => {
        setIndex(i);
        onIndex?.(i);
      })
      .catch((e: unknown) => setErr((e as Error).message));
  };
  useEffect(reload, []);
  const act = (a: RegistryAgentInfo, what: Busy): void => {
    // A second click while one runs does nothing here; the server refuses it too (409).
    if (busy[a.id]) return;
    setBusy((b) => ({ ...b, [a.id]: what }));
    setOutcome(({ [a.id]: _, ...rest }) => rest);
    const run =
      what === 'add'
        ? addRegistryAgent(a.id).then((r): Outcome => {
            const gap = r.provider.gaps[0];
            const cached = r.index?.from === 'cache' ? ` (from the cached registry: ${r.index.note ?? age(r.index.ageMs)})` : '';
            return gap
              ? { ok: false, message: `Installed ${r.installed.version}${cached}, not ready: ${gap.message}`, fix: gap.fix }
              : { ok: true, message: `Installed ${r.installed.version}${cached}` };
          })
        : what === 'update'
          ? updateRegistryAgent(a.id).then((r): Outcome => ({ ok: true, message: r.status === 'updated' ? `Updated ${r.from} → ${r.to ?? ''}` : `${r.from} is up to date` }))
          : removeRegistryAgent(a.id).then((r): Outcome => ({
              ok: true,
              message: `Removed ${r.removed.join(', ')}${r.openSessions ? ` — ${r.openSessions === 1 ? 'an open session keeps' : `${r.openSessions} open sessions keep`} the removed copy until closed; no new one starts` : ''}`,
            }));
    run
      .then((o) => {
        setOutcome((x) => ({ ...x, [a.id]: o }));
        reload();
        onChanged();
      })
      .catch((e: unknown) => setOutcome((x) => ({ ...x, [a.id]: { ok: false, message: (e as Error).message, fix: (e as { fix?: string }).fix } })))
      .finally(() => setBusy(({ [a.id]: _, ...rest }) => rest));
  };
  const needle = q.trim().toLowerCase();
  const hits = index?.agents.filter((a: RegistryAgentInfo) => !needle || [a.id, a.name, a.description].some((f) => f.toLowerCase().includes(needle)));
  return (
    <section className="registry" aria-label="ACP Registry">
      <h2>ACP Registry</h2>
      {err && (
        <p className="error" role="alert">
          {err}
        </p>
      )}
      {!index && !err && <p role="status">Reading the registry…</p>}
      {index && (
        <>
          <p className="muted small">
            {index.agents.length} agents from {index.url}
            {index.from === 'cache' ? ` — the cached copy from ${age(index.ageMs)}${index.note ? ` (${index.note})` : ''}` : ''}
          </p>
          <input type="search" placeholder="Search the registry" aria-label="Search the registry" value={q} onChange={(e) => setQ(e.target.value)} />
          <ul className="registry-list">
            {hits?.map((a) => (
              <li key={a.id} className="registry-item" data-agent={a.id} aria-busy={busy[a.id] ? 'true' : 'false'}>
                {a.icon ? <img src={a.icon} alt="" width={24} height={24} /> : <span className="registry-icon" aria-hidden="true" />}
                <div>
                  <strong>{a.name}</strong> <span className="muted small">{a.version}</span>
                  {a.license && <span className="muted small"> · {a.license}</span>}
                  {a.installed && <span className="ok small"> · installed {a.installed}</span>}
                  <div className="small">{a.description}</div>
                  <RowActions a={a} busy={busy[a.id]} canAct={canAct} act={act} />
                  {outcome[a.id] && (
                    <div className={outcome[a.id]!.ok ? 'ok small' : 'error small'} role={outcome[a.id]!.ok ? 'status' : 'alert'}>
                      {outcome[a.id]!.message}
                      <FixText fix={outcome[a.id]!.fix} />
                    </div>
                  )}
                </div>
              </li>
            ))}
          </ul>
          {hits?.length === 0 && <p className="muted">No agent matches “{q}”.</p>}
        </>
      )}
    </section>
  );
}

/** Add on an agent not installed; Update (only when the index has another version) and Remove on an installed one. */
function RowActions({ a, busy, canAct, act }: { a: RegistryAgentInfo; busy: Busy | undefined; canAct: boolean; act(a: RegistryAgentInfo, what: Busy): void }) {
  if (busy)
    return (
      <span className="registry-actions small" role="status">
        {BUSY_TEXT[busy]}
      </span>
    );
  if (!canAct) return a.installed ? null : <CopyCommand command={`talaria agents add ${a.id}`} />;
  const newer = a.installed !== undefined && a.installed !== a.version;
  return (
    <span className="registry-actions">
      {!a.installed && (
        <button type="button" onClick={() => act(a, 'add')} aria-label={`Add ${a.name}`}>
          Add
        </button>
      )}
      {a.installed && (
        <>
          <button type="button" disabled={!newer} onClick={() => act(a, 'update')} aria-label={`Update ${a.name}`} title={newer ? `Update to ${a.version}` : 'Up to date'}>
            {newer ? `Update to ${a.version}` : 'Update'}
          </button>{' '}
          <button type="button" onClick={() => act(a, 'remove')} aria-label={`Remove ${a.name}`}>
            Remove
          </button>
        </>
      )}
    </span>
  );
}
