import type { ProviderInfo, SessionSummaryInfo } from '../api/server.js';
import { MenuButton } from './menu.js';
import { ContinueItems } from './session-header.js';

const clock = (at: number): string => {
  const d = new Date(at);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' }) : d.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
};

/** Another host of the fleet ran it and that host is gone (its lease ran out, or it was revoked). */
export function hostOffline(s: SessionSummaryInfo | undefined): NonNullable<SessionSummaryInfo['host']> | undefined {
  const h = s?.host;
  return h && !h.self && (!h.online || s.presence === 'offline') ? h : undefined;
}

/**
 * Says so when the session's host is offline (docs/fleet.md §4): every saved turn reads from the
 * shared store, and "Continue here" seeds the conversation into an agent on this host — the same
 * branch as "Continue with another agent…". The session's own agent when this host has it ready,
 * else the agents to pick from. Nothing is offered while the host is up: the session is its.
 */
export function HostOfflineBanner({
  summary,
  providers,
  readOnly,
  onContinue,
}: {
  summary: SessionSummaryInfo | undefined;
  providers: ProviderInfo[];
  readOnly: boolean;
  onContinue: (provider: string) => void;
}) {
  const h = hostOffline(summary);
  if (!h || !summary) return null;
  const same = providers.find((p) => p.id === summary.provider && p.ready !== false);
  return (
    <div className="notice notice-warning banner host-offline" data-host={h.id}>
      <span className="notice-icon" aria-hidden="true">
        !
      </span>
      <span role="status">
        Running on {h.name} — host offline{h.heartbeatAt ? ` since ${clock(h.heartbeatAt)}` : ''}. Every saved turn is here.
      </span>
      {!readOnly &&
        (same ? (
          <button type="button" className="host-continue" title={`A new session on this host with ${same.label}, seeded with this conversation`} onClick={() => onContinue(same.id)}>
            Continue here
          </button>
        ) : (
          <MenuButton label="Continue here" className="host-continue-menu" icon={<>Continue here <span aria-hidden="true">▾</span></>}>
            <ContinueItems current={summary.provider} providers={providers} onPick={onContinue} />
          </MenuButton>
        ))}
    </div>
  );
}
