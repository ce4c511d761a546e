/**
 * Hermes profiles: `hermes profile list` (no JSON mode: fixed-width rows after a header, ◆ marks
 * the active one, "No profiles found." when empty) merged with a scan of <root>/profiles/.
 * Either source alone is enough: the CLI may be missing or slow, the folder may hold a profile
 * the CLI does not list yet.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { meaningfulLine } from '../command-output.js';
import { runProgram } from '../../os/run-program.js';
import type { ProviderEnv } from '../types.js';
import { activeProfile, hermesRoot, PROFILE_RE, profileHome } from './home.js';

/** From specs/hermes-acp.md: marker, name, model, gateway, alias, distribution. */
export const PROFILE_ROW_RE = /^( ◆|  )(\S+)\s+(\S+)\s+(running|stopped)\s+(\S+)\s+(\S+)\s*$/;

export interface ProfileRow {
  name: string;
  active: boolean;
  model?: string;
  gateway: 'running' | 'stopped';
  alias?: string;
}

const dash = (s: string | undefined) => (s === undefined || s === '—' || s === '-' ? undefined : s);

export function parseProfileList(text: string): ProfileRow[] {
  const rows: ProfileRow[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = PROFILE_ROW_RE.exec(line);
    if (!m) continue;
    const row: ProfileRow = { name: m[2]!, active: m[1] === ' ◆', gateway: m[4] as ProfileRow['gateway'] };
    const model = dash(m[3]);
    const alias = dash(m[5]);
    if (model) row.model = model;
    if (alias) row.alias = alias;
    rows.push(row);
  }
  return rows;
}

/** Profile names found on disk: `default` (the root) when it exists, plus <root>/profiles/*. */
export function scanProfiles(root: string): string[] {
  const out: string[] = [];
  if (existsSync(root)) out.push('default');
  const dir = join(root, 'profiles');
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (name === 'default' || !PROFILE_RE.test(name)) continue;
    try {
      if (statSync(join(dir, name)).isDirectory()) out.push(name);
    } catch {
      /* vanished */
    }
  }
  return out;
}

export interface HermesProfile {
  name: string;
  home: string;
  active: boolean;
  model?: string;
  gateway?: 'running' | 'stopped';
  alias?: string;
  /** Listed by `hermes profile list`. */
  listed: boolean;
  /** Its folder exists. */
  onDisk: boolean;
}

export interface ProfileListing {
  profiles: HermesProfile[];
  /** Why the CLI listing was not used (missing binary, timeout, error); the scan still counts. */
  cliProblem?: string;
}

export async function listProfiles(
  ctx: ProviderEnv,
  o: { command?: string; timeoutMs?: number } = {},
): Promise<ProfileListing> {
  const root = hermesRoot(ctx);
  let rows: ProfileRow[] = [];
  let cliProblem: string | undefined;
  if (o.command) {
    const r = await runProgram(o.command, ['profile', 'list'], {
      timeoutMs: o.timeoutMs ?? 10_000,
      parentEnv: ctx.env,
      inherit: ['HERMES_HOME'],
    });
    if (r.ok) rows = parseProfileList(r.stdout);
    else
      cliProblem = r.timedOut
        ? `\`hermes profile list\` did not answer within ${o.timeoutMs ?? 10_000} ms`
        : `\`hermes profile list\` failed: ${r.error ?? (meaningfulLine(r.stderr) || `exit ${r.code}`)}`;
  } else cliProblem = 'hermes was not found';
  const disk = new Set(scanProfiles(root));
  const active = activeProfile(ctx, (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined));
  const byName = new Map<string, HermesProfile>();
  for (const row of rows) {
    const p: HermesProfile = {
      name: row.name,
      home: profileHome(root, row.name),
      active: row.active,
      gateway: row.gateway,
      listed: true,
      onDisk: disk.has(row.name),
    };
    if (row.model) p.model = row.model;
    if (row.alias) p.alias = row.alias;
    byName.set(row.name, p);
  }
  for (const name of disk) {
    if (!byName.has(name))
      byName.set(name, {
        name,
        home: profileHome(root, name),
        active: rows.length === 0 && name === active,
        listed: false,
        onDisk: true,
      });
  }
  const profiles = [...byName.values()].sort((a, b) =>
    a.name === 'default' ? -1 : b.name === 'default' ? 1 : a.name.localeCompare(b.name),
  );
  return cliProblem ? { profiles, cliProblem } : { profiles };
}
