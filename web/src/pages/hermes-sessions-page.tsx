import { useEffect, useState } from 'react';
import { describeError } from '../api/server.js';
import { useApp, type AppStore } from '../state/app-store.js';
import { formatCost } from '../components/format.js';
import { EntryRow } from '../entries/entry-row.js';
import { go, href } from '../router.js';

type List = Awaited<ReturnType<AppStore['client']['api']['hermesSessions']>>;
type One = Awaited<ReturnType<AppStore['client']['api']['hermesSession']>>;
type Row = List['profiles'][number]['sessions'][number];

const n = (v: number): string => v.toLocaleString('en-US');
const when = (ms: number): string =>
  new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const label = (s: Row): string => s.title ?? s.preview ?? `${s.source} session`;

/**
 * "Other Hermes sessions": what Hermes keeps from its CLI and messaging channels (telegram,
 * discord, …), which ACP's session list never shows — read from its state.db, read-only.
 */
export function HermesSessionsPage({ store }: { store: AppStore }) {
  const [list, setList] = useState<List>();
  const [err, setErr] = useState<string>();
  useEffect(() => {
    let live = true;
    store.client.api
      .hermesSessions({ query: {} })
      .then((r) => live && (setList(r), setErr(undefined)))
      .catch((e: unknown) => live && setErr(describeError(e).message));
    return () => {
      live = false;
    };
  }, [store]);
  const total = list?.profiles.reduce((k, p) => k + p.sessions.length, 0) ?? 0;
  return (
    <div className="page hermes-page">
      <h1>Other Hermes sessions</h1>
      <p className="muted">
        Conversations you had with Hermes outside Talaria — its CLI, telegram, discord and its other channels — as
        Hermes records them in its own state.db. Read-only here; “Continue in Talaria” starts a new session that carries
        the conversation.
      </p>
      {err && (
        <p className="error" role="alert">
          {err}
        </p>
      )}
      {list?.profiles
        .filter((p) => p.kind !== 'ok')
        .map((p) => (
          <p key={p.profile} className="notice" role="note">
            Profile {p.profile}: {p.message}
          </p>
        ))}
      {list && total === 0 && <p className="muted">No Hermes sessions from other channels.</p>}
      {list?.profiles
        .filter((p) => p.sessions.length > 0)
        .map((p) => (
          <section key={p.profile} aria-labelledby={`hp-${p.profile}`}>
            {list.profiles.length > 1 && <h2 id={`hp-${p.profile}`}>Profile {p.profile}</h2>}
            <ul
              className="hermes-list"
              aria-label={list.profiles.length > 1 ? undefined : `Profile ${p.profile}`}
              id={list.profiles.length > 1 ? undefined : `hp-${p.profile}`}
            >
              {p.sessions.map((s) => (
                <li key={s.id}>
                  <a href={href.hermes(p.profile, s.id)}>{label(s)}</a>
                  <span className="muted small">
                    <span className="pill pill-slate">{s.source}</span> {when(s.lastActive)} · {s.messageCount} messages
                    {s.usage
                      ? ` · ${n(s.usage.inputTokens + s.usage.outputTokens)} tokens · ${formatCost(s.usage.cost)}`
                      : ''}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ))}
    </div>
  );
}

/** One of them: its messages as a read-only thread, and "Continue in Talaria". */
export function HermesSessionPage({ store, profile, id }: { store: AppStore; profile: string; id: string }) {
  const app = useApp(store);
  const [one, setOne] = useState<One>();
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    store.client.api
      .hermesSession({ params: { profile, id } })
      .then((r) => live && (setOne(r), setErr(undefined)))
      .catch((e: unknown) => live && setErr(describeError(e).message));
    return () => {
      live = false;
    };
  }, [store, profile, id]);
  const go_on = (): void => {
    setBusy(true);
    store.client.api
      .continueHermesSession({ params: { profile, id }, body: {} })
      .then((r) => go(href.session(r.id)))
      .catch((e: unknown) => (setErr(describeError(e).message), setBusy(false)));
  };
  const s = one?.session;
  return (
    <div className="page hermes-page">
      <p className="small">
        <a href={href.hermesList}>← Other Hermes sessions</a>
      </p>
      <h1>{s ? label(s) : id}</h1>
      {s && (
        <p className="muted small">
          <span className="pill pill-slate">{s.source}</span> Hermes{profile === 'default' ? '' : ` (${profile})`} ·
          started {when(s.startedAt)} · {s.messageCount} messages
          {s.model ? ` · ${s.model}` : ''}
          {s.usage
            ? ` · ${n(s.usage.inputTokens)} input, ${n(s.usage.outputTokens)} output tokens · ${formatCost(s.usage.cost)}`
            : ''}
          {s.continuations.length > 0 ? ` · continued after compression (${s.continuations.length})` : ''}
        </p>
      )}
      {s && app.role === 'controller' && (
        <p>
          <button type="button" className="primary" disabled={busy} onClick={go_on}>
            {busy ? 'Starting…' : 'Continue in Talaria'}
          </button>{' '}
          <span className="muted small">
            A new session with Hermes that gets this conversation with your next message. Hermes’ own record stays as it
            is.
          </span>
        </p>
      )}
      {err && (
        <p className="error" role="alert">
          {err}
        </p>
      )}
      {one && (
        <div className="thread hermes-thread" role="log" aria-label="Messages (read-only)">
          {one.entries.map((e, i) => (
            <EntryRow key={i} entry={e} index={i} />
          ))}
        </div>
      )}
    </div>
  );
}
