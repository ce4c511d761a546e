import type { SessionSummaryInfo } from '../api/server.js';
import { usePulse } from './motion.js';
/** Provider pills with their own colours (Hermes amber, like the desktop product). */
const COLORS: Record<string, string> = {
  hermes: 'amber',
  demo: 'slate',
  claude: 'clay',
  'claude-code': 'clay',
  codex: 'green',
  gemini: 'blue',
  opencode: 'violet',
  goose: 'teal',
};

export function providerColor(id: string): string {
  const base = id.split(/[:@/]/)[0] ?? id;
  return COLORS[base] ?? COLORS[id] ?? 'slate';
}

export function ProviderPill({ id, label, detail }: { id: string; label?: string | undefined; detail?: string | undefined }) {
  return (
    <span className={`pill pill-${providerColor(id)}`} title={`Provider: ${label ?? id}${detail ? ` (${detail})` : ''}`}>
      {label ?? id}
    </span>
  );
}

export type Status = 'idle' | 'running' | 'approval' | 'failed' | 'not-ready' | 'stored';

export const STATUS_LABEL: Record<Status, string> = {
  idle: 'idle',
  running: 'running',
  approval: 'needs approval',
  failed: 'failed',
  'not-ready': 'agent not ready',
  stored: 'not open',
};

export interface Failure {
  cause: 'turn' | 'agent';
  message: string;
}

export function statusOf(s: { state: string; needsAttention: boolean; failure?: Failure | undefined }, providerReady?: boolean): Status {
  if (s.needsAttention) return 'approval';
  if (providerReady === false) return 'not-ready';
  if (s.state === 'running' || s.state === 'cancelling') return 'running';
  if (s.state === 'failed' || s.failure) return 'failed';
  if (s.state === 'stored' || s.state === 'closed') return 'stored';
  return 'idle';
}

/** The dot's tooltip says why a session failed: its last turn's error, or that its agent stopped. */
export function statusWhy(status: Status, failure: Failure | undefined): string {
  if (status !== 'failed') return STATUS_LABEL[status];
  if (failure?.cause === 'turn') return `failed: the last turn ended with an error — ${failure.message}`;
  return `failed: the agent stopped${failure ? ` — ${failure.message}` : ''}`;
}

export function StatusDot({ status, failure }: { status: Status; failure?: Failure | undefined }) {
  const ref = usePulse(status === 'running');
  return <span ref={ref} className={`dot dot-${status}`} role="img" aria-label={STATUS_LABEL[status]} title={statusWhy(status, failure)} />;
}

/** Another host of the fleet runs (or ran) it: its name, its live status there, or that the host is offline. */
export function HostPill({ host, presence }: { host: NonNullable<SessionSummaryInfo['host']>; presence: SessionSummaryInfo['presence'] }) {
  const offline = !host.online || presence === 'offline';
  return (
    <span className={`pill pill-host ${offline ? 'pill-host-offline' : ''}`} data-host={host.id} title={offline ? `${host.name} is offline` : `Runs on ${host.name}${presence ? ` (${presence})` : ''}`}>
      {host.name}
      {offline ? ' · host offline' : presence && presence !== 'closed' ? ` · ${presence}` : ''}
    </span>
  );
}
