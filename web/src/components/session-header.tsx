import { useId, useState, type ReactNode } from 'react';
import { MenuButton } from './menu.js';
import type { CatalogSelector } from '../state/entries.js';
import type { SessionView } from '../state/session-store.js';
import type { ProviderInfo, SessionSummaryInfo } from '../api/server.js';
import { HostPill, ProviderPill, StatusDot, statusOf } from './pills.js';
import { formatCost, tokens } from './format.js';
import type { SessionCost } from '../state/session-cost.js';
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
  cost,
  agentPill,
}: {
  /** Shown instead of the plain provider pill (Hermes: its profile picker). */
  agentPill?: ReactNode;
  view: SessionView;
  /** The session's tokens and cost as `talaria usage` has them (Hermes: from its state.db). */
  cost?: SessionCost | undefined;
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
  const agentName = view.agent?.name ? `${view.agent.name}${view.agent.version ? ` ${view.agent.version}` : ''}` : undefined;
  const title = view.title || s?.title || 'New session';
  return (
    <header className="session-header">
      <StatusDot status={st} failure={s?.failure} />
      <h1 className="session-h1" title={title}>
        {title}
      </h1>
      {s && (agentPill ?? <ProviderPill id={s.provider} label={s.profile ? `${providerLabel ?? s.provider} · ${s.profile}` : providerLabel} detail={agentName} />)}
      {/* Another host of the fleet runs it: what is typed here goes there (docs/fleet.md §3). */}
      {s?.host && !s.host.self && <HostPill host={s.host} presence={s.presence} />}
      <div className="sh-controls">
        {s && !readOnly && fresh(view) && view.turnId === undefined && <AgentPicker current={s.provider} providers={providers} onPick={onProvider} />}
        {view.catalog.model && <Picker label="Model" sel={view.catalog.model} current={view.modelId} readOnly={readOnly} disabled={view.turnId !== undefined} onPick={onModel} />}
        {view.catalog.mode && <Picker label="Mode" sel={view.catalog.mode} current={view.modeId} readOnly={readOnly} disabled={false} onPick={onMode} />}
        <ContextRing view={view} cost={cost} />
        <Compressed view={view} />
      </div>
      <MenuButton label="More actions" icon="⋯" className="sh-more">
        <a role="menuitem" href={href.inspector(view.sessionId)}>
          Inspector
        </a>
        <a role="menuitem" href={exportHref('md')} download>
          Export .md
        </a>
        <a role="menuitem" href={exportHref('json')} download>
          Export .json
        </a>
        {/* The wire log as a replayable fixture (`{t_ms, dir, msg}` lines): what a bug report needs. */}
        <a role="menuitem" href={exportHref('fixture')} download title="The wire log as a replayable fixture (NDJSON)">
          Export wire log
        </a>
        {!readOnly && (
          <>
            <div role="separator" className="menu-sep" />
            <button type="button" role="menuitem" onClick={onFork}>
              Fork
            </button>
            {s && !fresh(view) && view.turnId === undefined && <ContinueWith current={s.provider} providers={providers} onPick={onContinue} />}
            <button type="button" role="menuitem" onClick={onArchive}>
              {s?.archived ? 'Unarchive' : 'Archive'}
            </button>
          </>
        )}
      </MenuButton>
    </header>
  );
}

/**
 * The context window as a small ring with its percentage; the numbers (context, tokens per turn
 * and per session, cost) in a tooltip on hover or focus (and the ring's title).
 */
function ContextRing({ view, cost: usage }: { view: SessionView; cost: SessionCost | undefined }) {
  const ctx = view.context;
  const pct = ctx.used !== undefined && ctx.size ? Math.min(100, Math.round((ctx.used / ctx.size) * 100)) : undefined;
  const tipId = useId();
  const R = 7;
  const C = 2 * Math.PI * R;
  const context = ctx.used !== undefined ? `${tokens(ctx.used)}/${tokens(ctx.size)}` : '–';
  // Hermes' own record (state.db) first; else what the agent sent in usage_update; else, for a read
  // that worked, "no price" — an unknown price is never shown as $0.
  const fromHermes = usage?.from === 'hermes-state-db';
  const compressed = usage?.hermes?.lineage;
  const parts = compressed ? [compressed.continuations > 0 && `${compressed.continuations} compression continuation${compressed.continuations === 1 ? '' : 's'}`, compressed.subagents > 0 && `${compressed.subagents} subagent${compressed.subagents === 1 ? '' : 's'}`].filter(Boolean).join(', ') : '';
  const cost = fromHermes
    ? `${formatCost(usage.cost)} (Hermes' record${parts ? `, incl. ${parts}` : ''})`
    : ctx.cost
      ? `${ctx.cost.amount.toFixed(4)} ${ctx.cost.currency}`
      : usage
        ? formatCost(usage.cost)
        : undefined;
  const title = [
    ctx.used !== undefined ? `Context: ${ctx.used} of ${ctx.size ?? '?'} tokens` : 'Context: not reported',
    `Tokens: ${tokens(view.turnUsage?.total)} last turn, ${tokens(view.sessionUsage.total)} session`,
    ...(cost ? [`Cost: ${cost}`] : []),
  ].join('\n');
  return (
    <span className="ctx">
      <span
        className={`ctx-ring${pct !== undefined && pct > 85 ? ' hot' : ''}`}
        role="meter"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? 0}
        aria-valuetext={pct !== undefined ? `${pct}%` : 'not reported'}
        aria-describedby={tipId}
        tabIndex={0}
        title={title}
      >
        <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
          <circle className="ctx-track" cx="9" cy="9" r={R} />
          {(pct ?? 0) > 0 && <circle className="ctx-fill" cx="9" cy="9" r={R} strokeDasharray={`${((pct ?? 0) / 100) * C} ${C}`} transform="rotate(-90 9 9)" />}
        </svg>
        <span className="ctx-pct small">{pct !== undefined ? `${pct}%` : '–'}</span>
      </span>
      <span className="ctx-tip small" role="tooltip" id={tipId}>
        <span className="ctx-line">
          <span className="muted">Context</span> {context}
        </span>
        <span className="ctx-line">
          <span className="muted">Tokens</span> {tokens(view.turnUsage?.total)} turn · {tokens(view.sessionUsage.total)} session
        </span>
        {cost && (
          <span className="ctx-line">
            <span className="muted">Cost</span> {cost}
          </span>
        )}
      </span>
    </span>
  );
}

/** No message sent or received yet: the session can still become another agent's. */
/**
 * Hermes moved the conversation to a new session row at each compression (`compression.in_place:
 * false`); Talaria follows it. Shown only when that happened: the count, the ids in the title.
 */
function Compressed({ view }: { view: SessionView }) {
  const h = view.hermes;
  if (!h || h.compressionDepth === 0) return null;
  const parent = h.parentHermesSessionId ? `, parent ${h.parentHermesSessionId}` : '';
  const tip = `Hermes compressed this conversation ${h.compressionDepth}× and continues it in ${h.currentHermesSessionId} (root ${h.rootHermesSessionId}${parent})`;
  return (
    <span className="sh-compressed" title={tip} aria-label={tip} data-testid="compressed-marker">
      compressed ×{h.compressionDepth}
    </span>
  );
}

export function fresh(view: SessionView): boolean {
  return !view.entries.some((e) => {
    const k = (e as { kind?: string }).kind;
    return k === 'user_message' || k === 'assistant_message' || k === 'tool_call';
  });
}

function AgentPicker({ current, providers, onPick }: { current: string; providers: ProviderInfo[]; onPick: (id: string) => void }) {
  return (
    <label className="picker small" title="Agent">
      <span className="sr-only">Agent</span>
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

/**
 * "Continue with another agent…" in the actions menu: it opens the agents as menu items (not-ready
 * ones disabled); picking one branches there.
 */
function ContinueWith({ current, providers, onPick }: { current: string; providers: ProviderInfo[]; onPick: (id: string) => void }) {
  const [open, setOpen] = useState(false);
  const list = useId();
  return (
    <>
      <button type="button" role="menuitem" aria-haspopup="menu" aria-expanded={open} aria-controls={open ? list : undefined} onClick={() => setOpen((o) => !o)}>
        Continue with another agent… <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      {open && (
        <div role="menu" id={list} aria-label="Continue with another agent" className="submenu">
          <ContinueItems current={current} providers={providers} onPick={onPick} />
        </div>
      )}
    </>
  );
}

/** The agents to continue with, as menu items (not-ready ones disabled): this menu's and the host-offline banner's. */
export function ContinueItems({ current, providers, onPick }: { current: string; providers: ProviderInfo[]; onPick: (id: string) => void }) {
  return (
    <>
      {providers.map((p) => (
        <button
          key={p.id}
          type="button"
          role="menuitem"
          aria-disabled={p.ready === false || undefined}
          onClick={(e) => {
            if (p.ready === false) return e.stopPropagation();
            onPick(p.id);
          }}
        >
          {p.label}
          {p.id === current ? ' (this agent, fresh session)' : ''}
          {p.ready === false ? ' (not ready)' : ''}
        </button>
      ))}
    </>
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
        <span className="sr-only">{label}</span> <span className="picker-value">{sel.options.find((o) => o.id === value)?.label ?? (value || '—')}</span>
      </span>
    );
  return (
    <label className="picker small" title={label}>
      <span className="sr-only">{label}</span>
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
