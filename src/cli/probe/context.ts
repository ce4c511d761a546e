/**
 * What every check gets: the live client and session, the recorder, the scratch workspace, the
 * steering table row, the step limit, and what earlier checks learned. Plus the helpers the
 * checks share: time-limited waits and result building.
 */
import { RequestError } from '../../protocol/wire-error.js';
import type { AcpClient } from '../../session/client.js';
import { describeError } from '../../session/errors.js';
import type { Session } from '../../session/session.js';
import type { Recorder } from './recorder.js';
import type { Steering } from './steering.js';
import type { CheckResult, ProbeStatus } from './types.js';

export interface ProbeWorkspace {
  /** The agent's cwd (seeded with notes.txt). */
  cwd: string;
  /** A second, empty folder: session/list filtered by it must not show the probe's session. */
  otherCwd: string;
  /** Where the MCP echo server logs what it was asked. */
  mcpLog: string;
  /** The seeded file's text. */
  seedText: string;
}

export interface ProbeContext {
  client: AcpClient;
  session: Session;
  recorder: Recorder;
  steering: Steering;
  ws: ProbeWorkspace;
  timeoutMs: number;
  /** The value of TALARIA_PROBE_MARKER in the agent's env. */
  marker: string;
  /** Appears in the MCP tool's output only when the probe's server really answered. */
  mcpNonce: string;
  /** The mcpServers entry, when session/new accepted it (undefined: not registered). */
  mcpServer?: Record<string, unknown>;
  /** Why the MCP server is not registered (session/new refused it). */
  mcpRefused?: string;
  /** Tool call ids announced in live turns (compared with the ids a load replays). */
  liveToolIds: Set<string>;
  /** Set when a turn could not be ended: later turns on this session are skipped. */
  busy?: string;
  /** The first prompt's text (load checks that the replay holds it). */
  firstPrompt?: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; timedOut: true };

/** Races `p` with a timer that is always cleared (never keeps the process alive). */
export async function within<T>(p: Promise<T>, timeoutMs: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, timedOut: true }), timeoutMs);
  });
  try {
    return await Promise.race([p.then((value) => ({ ok: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function result(
  id: string,
  title: string,
  status: ProbeStatus,
  summary: string,
  evidence: string[] = [],
  data?: Record<string, unknown>,
): CheckResult {
  const r: CheckResult = { id, title, status, summary, evidence };
  if (data !== undefined) r.data = data;
  return r;
}

export function codedErrorText(err: unknown): string {
  // JSON-RPC errors keep the agent's detail in `data` (details, message, error…): show it.
  if (err instanceof RequestError) return `[${err.code}] ${describeError(err).message}`;
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === 'string' || typeof code === 'number' ? `[${code}] ` : ''}${err.message}`;
  }
  return String(err);
}

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** JSON for evidence lines, cut to a readable length. */
export function short(v: unknown, max = 120): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
