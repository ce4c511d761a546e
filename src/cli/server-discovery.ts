/**
 * How `talaria run` finds a running `talaria serve` on the same Talaria home: serve writes
 * `<home>/serve.json` (mode 0600: its origin, pid, home and a controller token minted for local
 * CLI use) and removes it when it stops. A stale file (dead pid, no answer, another home) is
 * ignored, never an error: `run` then works locally as before. Whether the server answers is
 * proven by the run's first connection (its live socket's welcome), not by a round trip here.
 */
import { readFileSync, realpathSync, rmSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const DISCOVERY_FILE = 'serve.json';

/** How long `run` waits for the server's welcome on its live socket before working locally. */
export const LIVENESS_TIMEOUT_MS = 1_000;

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
  if (
    typeof d.url !== 'string' ||
    typeof d.token !== 'string' ||
    typeof d.home !== 'string' ||
    !Number.isInteger(d.pid)
  )
    return undefined;
  return {
    url: d.url,
    pid: d.pid!,
    home: d.home,
    token: d.token,
    version: typeof d.version === 'string' ? d.version : '',
  };
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
 * The server of this home, when the file is there, its pid is alive and the file names this
 * home. No request is made: the caller's first connection proves the server answers (and falls
 * back to a local run when it does not).
 */
export function findServer(home: string): FindResult {
  const d = readDiscovery(home);
  if (!d) return { skipped: 'no running server (no serve.json)' };
  if (!alive(d.pid)) return { skipped: `serve.json is stale (process ${d.pid} is gone)` };
  if (d.home !== realHome(home)) return { skipped: `serve.json names another home (${d.home})` };
  return { server: d };
}
