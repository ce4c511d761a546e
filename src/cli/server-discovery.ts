/**
 * How `talaria run` finds a running `talaria serve` on the same Talaria home: serve writes
 * `<home>/serve.json` (mode 0600: its origin, pid, home and a controller token minted for local
 * CLI use) and removes it when it stops. A stale file (dead pid, no answer, another home) is
 * ignored, never an error: `run` then works locally as before.
 */
import { readFileSync, realpathSync, rmSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchLike } from '../server/client/index.js';
import { nodeFetch } from './node-fetch.js';

export const DISCOVERY_FILE = 'serve.json';

/** How long `run` waits for the server's /api/health before working locally. */
export const HEALTH_TIMEOUT_MS = 1_000;

export interface ServerDiscovery {
  /** The server's origin (http://127.0.0.1:PORT), no token in it. */
  url: string;
  pid: number;
  /** The Talaria home the server runs on (realpath). */
  home: string;
  /** A controller token for local CLI use; never printed. */
  token: string;
  version: string;
}

export function discoveryFile(home: string): string {
  return join(home, DISCOVERY_FILE);
}

function realHome(home: string): string {
  try {
    return realpathSync(home);
  } catch {
    return home;
  }
}

/** Written by `talaria serve` once it listens; replaced atomically, readable by the owner only. */
export function writeDiscovery(home: string, d: Omit<ServerDiscovery, 'home'>): void {
  mkdirSync(home, { recursive: true });
  const file = discoveryFile(home);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...d, home: realHome(home) }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removed by `talaria serve` when it stops — only its own (another serve may have replaced it). */
export function removeDiscovery(home: string, pid = process.pid): void {
  const d = readDiscovery(home);
  if (d && d.pid !== pid) return;
  rmSync(discoveryFile(home), { force: true });
}

export function readDiscovery(home: string): ServerDiscovery | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(discoveryFile(home), 'utf8'));
  } catch {
    return undefined; // absent or half-written: no server to use
  }
  const d = raw as Partial<ServerDiscovery>;
  if (typeof d.url !== 'string' || typeof d.token !== 'string' || typeof d.home !== 'string' || !Number.isInteger(d.pid)) return undefined;
  return { url: d.url, pid: d.pid!, home: d.home, token: d.token, version: typeof d.version === 'string' ? d.version : '' };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: another user's process — not a server of this home either way.
    return false;
  }
}

/** Why a discovery file was not used (for --verbose), or the server to use. */
export type FindResult = { server: ServerDiscovery } | { skipped: string };

/**
 * The running server of this home, when the file is there, its pid is alive, the file names
 * this home and `/api/health` answers within the timeout.
 */
export async function findServer(home: string, o: { timeoutMs?: number; fetch?: FetchLike } = {}): Promise<FindResult> {
  const d = readDiscovery(home);
  if (!d) return { skipped: 'no running server (no serve.json)' };
  if (!alive(d.pid)) return { skipped: `serve.json is stale (process ${d.pid} is gone)` };
  if (d.home !== realHome(home)) return { skipped: `serve.json names another home (${d.home})` };
  const f = o.fetch ?? nodeFetch;
  try {
    const res = await f(`${d.url}/api/health`, { signal: AbortSignal.timeout(o.timeoutMs ?? HEALTH_TIMEOUT_MS) });
    const body = (await res.json()) as { ok?: boolean; name?: string };
    if (!res.ok || body.ok !== true || body.name !== 'talaria') return { skipped: `${d.url} is not a Talaria server` };
  } catch (err) {
    return { skipped: `the server at ${d.url} does not answer (${(err as Error).message})` };
  }
  return { server: d };
}
