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

export function ProviderPill({ id, label }: { id: string; label?: string | undefined }) {
  return (
    <span className={`pill pill-${providerColor(id)}`} title={`Provider: ${label ?? id}`}>
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

export function statusOf(s: { state: string; needsAttention: boolean }, providerReady?: boolean): Status {
  if (s.needsAttention) return 'approval';
  if (providerReady === false) return 'not-ready';
  if (s.state === 'running' || s.state === 'cancelling') return 'running';
  if (s.state === 'failed') return 'failed';
  if (s.state === 'stored' || s.state === 'closed') return 'stored';
  return 'idle';
}

export function StatusDot({ status }: { status: Status }) {
  return <span className={`dot dot-${status}`} role="img" aria-label={STATUS_LABEL[status]} title={STATUS_LABEL[status]} />;
}
