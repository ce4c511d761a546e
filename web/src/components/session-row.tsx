import { useState, type MouseEvent } from 'react';
import type { AppStore } from '../state/app-store.js';
import type { SessionSummaryInfo } from '../api/server.js';
import type { SessionNode } from '../state/session-tree.js';
import { href } from '../router.js';
import { HostPill, ProviderPill, StatusDot, statusOf } from './pills.js';
import { ago } from './format.js';

export interface RowContext {
  current: string | undefined;
  ready: Map<string, boolean | undefined>;
  labels: Map<string, string>;
}

/**
 * A stored session's row: status dot, title (with a short id when a sibling reads the same),
 * provider pill, what it is (a branch's label, a one-shot run), last activity and preview; its
 * branches nested under it.
 */
export function SessionItem({ node, ctx }: { node: SessionNode; ctx: RowContext }) {
  const { s, label, tag, children } = node;
  const st = statusOf(s, ctx.ready.get(s.provider));
  const here = ctx.current === s.id;
  return (
    <li>
      <a className={`session-item ${here ? 'current' : ''}`} href={href.session(s.id)} aria-current={here ? 'page' : undefined} data-session={s.id}>
        <span className="session-line1">
          <StatusDot status={st} failure={s.failure} />
          <span className="session-title">{s.title || 'New session'}</span>
          {tag && (
            <span className="session-tag small" title={`Session ${s.id}`}>
              {tag}
            </span>
          )}
          {s.needsAttention && (
            <span className="badge small" aria-label="approval waiting">
              !
            </span>
          )}
        </span>
        <span className="session-line2">
          <ProviderPill id={s.provider} label={ctx.labels.get(s.provider)} />
          {s.createdBy === 'run' && (
            <span className="pill pill-run" title="Made by a one-shot talaria run">
              one-shot run
            </span>
          )}
          {s.hermesLineage && <CompressedMark l={s.hermesLineage} />}
          {s.host && !s.host.self && <HostPill host={s.host} presence={s.presence} />}
          <span className="muted small">{s.updatedAt ? ago(s.updatedAt) : ''}</span>
        </span>
        {label && (
          <span className="branch-label small" data-branch={s.branch?.kind}>
            <span aria-hidden="true">↳ </span>
            {label}
          </span>
        )}
        {s.preview && <span className="session-preview muted small">{s.preview}</span>}
      </a>
      {children.length > 0 && (
        <ul className="session-list session-children" aria-label={`Branches of ${s.title || 'this session'}`}>
          {children.map((c) => (
            <SessionItem key={c.s.id} node={c} ctx={ctx} />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * A session only the agent lists (its own history, never stored here), marked as such. A click
 * opens it through the server (the agent loads or resumes it, Talaria stores it) and shows it.
 */
export function AgentOnlyItem({ store, s, label, canOpen }: { store: AppStore; s: SessionSummaryInfo; label: string | undefined; canOpen: boolean }) {
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

/** Hermes went on in new rows of its own after compressing: how many times, and its ids on hover. */
function CompressedMark({ l }: { l: NonNullable<SessionSummaryInfo['hermesLineage']> }) {
  const parent = l.parentHermesSessionId ? `, parent ${l.parentHermesSessionId}` : '';
  const tip = `Hermes compressed this conversation ${l.compressions}× — root ${l.rootHermesSessionId}${parent}, now ${l.currentHermesSessionId}`;
  return (
    <span className="pill pill-compressed" title={tip} aria-label={tip} data-testid="row-compressed">
      compressed ×{l.compressions}
    </span>
  );
}
