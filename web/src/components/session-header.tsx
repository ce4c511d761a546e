import { useEffect, useRef, useState } from 'react';
import type { CatalogSelector } from '../state/entries.js';
import type { SessionView } from '../state/session-store.js';
import type { ProviderInfo, SessionSummaryInfo } from '../api/server.js';
import { ProviderPill, StatusDot, statusOf } from './pills.js';
import { tokens } from './format.js';
import { href } from '../router.js';

/** Title, provider, model picker (grouped by provider), mode, context meter, tokens and cost. */
export function SessionHeader({
  view,
  summary,
  providerLabel,
  readOnly,
  providers,
  onProvider,
  onModel,
  onMode,
  onArchive,
  onFork,
  onContinue,
  exportHref,
}: {
  view: SessionView;
  summary: SessionSummaryInfo | undefined;
  providerLabel?: string | undefined;
  readOnly: boolean;
  /** Every provider; offered while the session holds no message yet (then a switch costs nothing). */
  providers: ProviderInfo[];
  onProvider: (id: string) => void;
  onModel: (id: string) => void;
  onMode: (id: string) => void;
  onArchive: () => void;
  onFork: () => void;
  /** Continue the conversation with another agent: a branch seeded with it (issue 14). */
  onContinue: (provider: string) => void;
  exportHref: (format: 'md' | 'json' | 'fixture') => string;
}) {
  const s = summary;
  // The same readiness the sidebar reads, so both dots agree for one session.
  const ready = s ? providers.find((p) => p.id === s.provider)?.ready : undefined;
  const st = s ? statusOf({ state: view.state, needsAttention: view.pending.length > 0, failure: s.failure }, ready) : 'stored';
  const ctx = view.context;
  const pct = ctx.used !== undefined && ctx.size ? Math.min(100, Math.round((ctx.used / ctx.size) * 100)) : undefined;
  const more = useMore();
  return (
    <header className="session-header" ref={more.root}>
      <div className="sh-line1">
        <StatusDot status={st} failure={s?.failure} />
        <h1 className="session-h1">{view.title || s?.title || 'New session'}</h1>
        {s && <ProviderPill id={s.provider} label={providerLabel} />}
        {s && !readOnly && fresh(view) && view.turnId === undefined && <AgentPicker current={s.provider} providers={providers} onPick={onProvider} />}
        {view.agent?.name && (
          <span className="muted small">
            {view.agent.name}
            {view.agent.version ? ` ${view.agent.version}` : ''}
          </span>
        )}
        {/* On a narrow screen the actions fold into this one menu (CSS shows it there only). */}
        <button
          type="button"
          className="icon-btn sh-more"
          aria-label="More actions"
          aria-expanded={more.open}
          aria-controls={`sh-actions-${view.sessionId}`}
          ref={more.button}
          onClick={() => more.setOpen(!more.open)}
        >
          ⋯
        </button>
      </div>
      <div className="sh-line2">
        {view.catalog.model && <Picker label="Model" sel={view.catalog.model} current={view.modelId} readOnly={readOnly} disabled={view.turnId !== undefined} onPick={onModel} />}
        {view.catalog.mode && <Picker label="Mode" sel={view.catalog.mode} current={view.modeId} readOnly={readOnly} disabled={false} onPick={onMode} />}
        <span className="meter" title={ctx.used !== undefined ? `Context: ${ctx.used} of ${ctx.size ?? '?'} tokens` : 'Context: not reported'}>
          <span className="small muted meter-label">Context</span>
          <span className="meter-bar" role="meter" aria-label="Context used" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct ?? 0}>
            <span className={`meter-fill ${pct !== undefined && pct > 85 ? 'hot' : ''}`} style={{ width: `${pct ?? 0}%` }} />
          </span>
          <span className="small">{ctx.used !== undefined ? `${tokens(ctx.used)}/${tokens(ctx.size)}` : '–'}</span>
        </span>
        <span className="small sh-tokens" title="Tokens in the last turn / in this session">
          <span className="muted">Tokens</span> {tokens(view.turnUsage?.total)} turn · {tokens(view.sessionUsage.total)} session
        </span>
        {ctx.cost && (
          <span className="small">
            <span className="muted">Cost</span> {ctx.cost.amount.toFixed(4)} {ctx.cost.currency}
          </span>
        )}
        <span
          className={`sh-actions${more.open ? ' open' : ''}`}
          id={`sh-actions-${view.sessionId}`}
          onClick={(e) => {
            // A link or button in the menu did its job: the menu shuts (a picker inside stays open while used).
            if ((e.target as HTMLElement).closest('a, button')) more.setOpen(false);
          }}
        >
          <a href={href.inspector(view.sessionId)} className="small">
            Inspector
          </a>
          <a href={exportHref('md')} className="small" download>
            Export .md
          </a>
          <a href={exportHref('json')} className="small" download>
            .json
          </a>
          {/* The wire log as a replayable fixture (`{t_ms, dir, msg}` lines): what a bug report needs. */}
          <a href={exportHref('fixture')} className="small" download title="The wire log as a replayable fixture (NDJSON)">
            wire
          </a>
          {!readOnly && (
            <>
              <button type="button" className="link-btn small" onClick={onFork}>
                Fork
              </button>
              {s && !fresh(view) && view.turnId === undefined && <ContinueWith current={s.provider} providers={providers} onPick={onContinue} />}
              <button type="button" className="link-btn small" onClick={onArchive}>
                {s?.archived ? 'Unarchive' : 'Archive'}
              </button>
            </>
          )}
        </span>
      </div>
    </header>
  );
}

/** The "More actions" menu of a narrow screen: open and shut, shut by Escape or a tap elsewhere (Escape then does not also stop the turn). */
function useMore() {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    };
    const onDown = (e: PointerEvent): void => {
      const t = e.target as Node | null;
      if (t && !root.current?.querySelector('.sh-actions')?.contains(t) && !button.current?.contains(t)) setOpen(false);
    };
    window.addEventListener('keydown', onKey, true);
    document.addEventListener('pointerdown', onDown, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onDown, true);
    };
  }, [open]);
  return { open, setOpen, root, button };
}

/** No message sent or received yet: the session can still become another agent's. */
export function fresh(view: SessionView): boolean {
  return !view.entries.some((e) => {
    const k = (e as { kind?: string }).kind;
    return k === 'user_message' || k === 'assistant_message' || k === 'tool_call';
  });
}

function AgentPicker({ current, providers, onPick }: { current: string; providers: ProviderInfo[]; onPick: (id: string) => void }) {
  return (
    <label className="picker small">
      <span className="muted">Agent</span>
      <select aria-label="Agent" value={current} onChange={(e) => onPick(e.target.value)}>
        {!providers.some((p) => p.id === current) && <option value={current}>{current}</option>}
        {providers.map((p) => (
          <option key={p.id} value={p.id} disabled={p.ready === false && p.id !== current}>
            {p.label}
            {p.ready === false ? ' (not ready)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "Continue with another agent…": a menu of the agents (not-ready ones disabled); picking one branches there. */
function ContinueWith({ current, providers, onPick }: { current: string; providers: ProviderInfo[]; onPick: (id: string) => void }) {
  return (
    <select
      className="small continue-with"
      aria-label="Continue with another agent"
      value=""
      onChange={(e) => {
        if (e.target.value) onPick(e.target.value);
      }}
    >
      <option value="">Continue with another agent…</option>
      {providers.map((p) => (
        <option key={p.id} value={p.id} disabled={p.ready === false}>
          {p.label}
          {p.id === current ? ' (this agent, fresh session)' : ''}
          {p.ready === false ? ' (not ready)' : ''}
        </option>
      ))}
    </select>
  );
}

/** A model or mode menu; for a read-only link just the value, as text (nothing that looks like it could be changed). */
function Picker({
  label,
  sel,
  current,
  readOnly,
  disabled,
  onPick,
}: {
  label: string;
  sel: CatalogSelector;
  current: string | undefined;
  readOnly: boolean;
  disabled: boolean;
  onPick: (id: string) => void;
}) {
  const groups = new Map<string, typeof sel.options>();
  for (const o of sel.options) groups.set(o.group ?? '', [...(groups.get(o.group ?? '') ?? []), o]);
  const value = current ?? sel.currentId ?? '';
  if (readOnly)
    return (
      <span className="picker picker-ro small" title={`${label} (read-only link)`}>
        <span className="muted">{label}</span> <span className="picker-value">{sel.options.find((o) => o.id === value)?.label ?? (value || '—')}</span>
      </span>
    );
  return (
    <label className="picker small">
      <span className="muted">{label}</span>
      <select aria-label={label} value={value} disabled={disabled} onChange={(e) => onPick(e.target.value)}>
        {!sel.options.some((o) => o.id === value) && <option value={value}>{value || '—'}</option>}
        {[...groups].map(([g, opts]) =>
          g ? (
            <optgroup key={g} label={g}>
              {opts.map((o) => (
                <option key={o.id} value={o.id} title={o.description}>
                  {o.label}
                </option>
              ))}
            </optgroup>
          ) : (
            opts.map((o) => (
              <option key={o.id} value={o.id} title={o.description}>
                {o.label}
              </option>
            ))
          ),
        )}
      </select>
    </label>
  );
}
