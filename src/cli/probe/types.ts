/** What `talaria probe` measures and reports: one row per check, plus the wire conformance summary. */
import { TalariaError } from '../../protocol/errors.js';
import type { UnknownMethod, WireCheckStats } from '../../protocol/wire-check.js';
import type { Provider, ProviderEnv, QuirkSummary } from '../../providers/index.js';
import type { Logger } from '../../protocol/types.js';

/**
 * works: exercised, and it behaved as ACP says · supported: advertised or accepted, not verified
 * (or information only) · quirk: works through a deviation from ACP that Talaria handles (the
 * evidence says which) · broken: advertised or required, and it failed · unsupported: not
 * advertised (fine) · not_testable: the probe could not steer the agent into it · skipped: an
 * earlier failure (or the run being stopped) prevented it.
 */
export type ProbeStatus = 'works' | 'supported' | 'quirk' | 'broken' | 'unsupported' | 'not_testable' | 'skipped';

export const PROBE_STATUSES: readonly ProbeStatus[] = [
  'works',
  'supported',
  'quirk',
  'broken',
  'unsupported',
  'not_testable',
  'skipped',
];

export interface CheckResult {
  /** Stable id: `initialize`, `capabilities`, `session_new`, `stream`, `tools`, … */
  id: string;
  /** Human label for the table. */
  title: string;
  status: ProbeStatus;
  /** One line: the evidence in short (the table's third column). */
  summary: string;
  /** The frames or values that show it, one per line. */
  evidence: string[];
  /** Machine-readable measurements (times in ms, counts, ids). */
  data?: Record<string, unknown>;
  durationMs?: number;
}

export interface ProbeWireSummary {
  stats: WireCheckStats;
  /** formatViolation lines, each prefixed with the check during which the frame arrived. */
  violations: string[];
  unknownMethods: (UnknownMethod & { check: string })[];
  /** Lines on the agent's stdout that are not JSON-RPC (kind + preview). */
  protocolErrors: { kind: string; preview: string; check: string }[];
}

export interface ProbeReport {
  v: 1;
  agent: {
    label: string;
    command: string;
    args: string[];
    name?: string;
    version?: string;
    title?: string;
    /** The quirk set that follows the agent, and why (restartedFrom: the guess it was first started with). */
    quirks?: QuirkSummary & { restartedFrom?: string };
  };
  /** Which prompt table was used (`demo`, `hermes`, `generic`). */
  steering: string;
  cwd: string;
  /** False when the agent could not be started, initialized or given a session. */
  ready: boolean;
  notReady?: string;
  /** True when the run was stopped (SIGINT) before every check ran. */
  interrupted?: boolean;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  counts: Record<ProbeStatus, number>;
  wire: ProbeWireSummary;
}

/** How to start the agent under probe (resolved from --agent / --agent-cmd). */
export interface ProbeLaunch {
  label: string;
  command: string;
  args: string[];
  /** Set explicitly in the agent's env (the probe adds its marker variable). */
  env: Record<string, string>;
  /** Non-secret parent variables passed through. */
  inherit: string[];
  /** A registry agent: its capability ceilings and the name it is expected to give. */
  provider?: Provider;
  /** Where quirk hooks read the agent's files from (pi's session log, Hermes' config.yaml). */
  hookEnv?: ProviderEnv;
  providerId?: string;
}

export interface ProbeOptions {
  launch: ProbeLaunch;
  /** Where the scratch workspace is created (default: the OS temp dir). */
  parentDir?: string;
  /** Limit for each step: spawn + initialize, each request, each turn (default 60 000). */
  timeoutMs?: number;
  logger?: Logger;
  onProgress?: (step: string) => void;
  /** Stops the probe between steps (the agent is closed, remaining checks are skipped). */
  signal?: AbortSignal;
  /** Keep the scratch workspace afterwards (for debugging). */
  keepWorkspace?: boolean;
}

/** The agent could not be found or resolved (before anything was spawned). */
export class ProbeNotReadyError extends TalariaError<'not_ready'> {
  override readonly name = 'ProbeNotReadyError';
  constructor(message: string) {
    super('not_ready', message);
  }
}

export const DEFAULT_PROBE_TIMEOUT_MS = 60_000;
/** The variable the probe sets in the agent's env and asks the agent to echo. */
export const MARKER_VAR = 'TALARIA_PROBE_MARKER';
export const MCP_SERVER_NAME = 'talaria-probe';
export const MCP_TOOL_NAME = 'probe_echo';
/** The seeded file the tool turn reads (Hermes' TOOLS script reads notes.txt too). */
export const SEED_FILE = 'notes.txt';
