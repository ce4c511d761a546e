/** Matrix result shapes (printed as a table, written as JSON). */
import type { QuirkName } from './quirks.js';

export const SCENARIOS = [
  'initialize',
  'session/new',
  'text',
  'shell',
  'read',
  'write',
  'deny',
  'error-400',
  'cancel',
  'after-cancel',
  'steer',
  'rewind',
  'continue',
  'no-credentials',
  'readiness',
  'cli',
  'cli-write',
  'cli-deny',
  'cli-error',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** works / quirk absorbed / broken; n/a where the scenario cannot run for this agent (cursor). */
export type CellStatus = 'works' | 'quirk' | 'broken' | 'n/a';

export interface Cell {
  status: CellStatus;
  detail: string;
  quirks: QuirkName[];
  ms: number;
}

export interface AgentResult {
  agent: string;
  version: string;
  /** How it was started: Talaria's built-in id, or its own command line (`--agent-cmd`). */
  by: 'id' | 'command';
  /** The quirk set Talaria chose, and why (from the agent.spawned event). */
  quirks?: { set: string; why: string; restartedFrom?: string };
  install: { ms: number; bytes: number; cached: boolean } | { error: string };
  timeToInitializeMs?: number;
  timeToFirstTokenMs?: number;
  cells: Partial<Record<ScenarioName, Cell>>;
  /** Where this run's wire logs are. */
  logs: string;
  /** What the agent wrote on stderr last (for broken cells). */
  stderrTail?: string;
}
