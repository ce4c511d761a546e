import { useEffect, useState } from 'react';
import { readRegistry, type RegistryAgentInfo, type RegistryIndexInfo } from '../api/registry.js';
import './sign-in.css';

type Index = RegistryIndexInfo;

const age = (ms: number) => (ms < 60_000 ? 'just now' : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min ago` : `${Math.round(ms / 3_600_000)} h ago`);

/**
 * The ACP Registry's agents (issue 13): name, description, version, license and icon from the
 * index the server caches, a search, and which are installed here. Installing from the page is
 * not built yet: the line says the command.
 */
export function RegistryList() {
  const [index, setIndex] = useState<Index>();
  const [err, setErr] = useState<string>();
  const [q, setQ] = useState('');
  useEffect(() => {
    readRegistry()
      .then(setIndex)
      .catch((e: unknown) => setErr((e as Error).message));
  }, []);
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
              <li key={a.id} className="registry-item" data-agent={a.id}>
                {a.icon ? <img src={a.icon} alt="" width={24} height={24} /> : <span className="registry-icon" aria-hidden="true" />}
                <div>
                  <strong>{a.name}</strong> <span className="muted small">{a.version}</span>
                  {a.license && <span className="muted small"> · {a.license}</span>}
                  {a.installed ? <span className="ok small"> · installed {a.installed}</span> : <code className="small"> talaria agents add {a.id}</code>}
                  <div className="small">{a.description}</div>
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
