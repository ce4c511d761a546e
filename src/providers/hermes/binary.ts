/**
 * Finding the `hermes` executable: HERMES_BIN, PATH, the per-user venv
 * (~/.hermes/hermes-agent/venv/bin/hermes), the root install
 * (/usr/local/lib/hermes-agent/venv/bin/hermes), and on Windows
 * %LOCALAPPDATA%\hermes\venv\Scripts\hermes.exe or $HERMES_HOME\venv\Scripts\hermes.exe.
 * An explicit HERMES_BIN that is wrong is reported, never silently replaced by another Hermes.
 */
import { join, win32 } from 'node:path';
import { isExecutable, which } from '../locate.js';
import type { ProviderEnv } from '../types.js';

export interface HermesBinary {
  command: string;
  via: string;
}

export interface HermesSearch {
  found?: HermesBinary;
  /** Every place looked at, in order (for the "not found" message). */
  tried: string[];
  /** HERMES_BIN was set but is not an executable file. */
  badBin?: string;
}

/** Fixed install locations, in search order (PATH is searched between HERMES_BIN and these). */
export function hermesLocations(ctx: ProviderEnv): string[] {
  if (ctx.platform === 'win32') {
    const out: string[] = [];
    if (ctx.env.LOCALAPPDATA) out.push(win32.join(ctx.env.LOCALAPPDATA, 'hermes', 'venv', 'Scripts', 'hermes.exe'));
    if (ctx.env.HERMES_HOME) out.push(win32.join(ctx.env.HERMES_HOME, 'venv', 'Scripts', 'hermes.exe'));
    return out;
  }
  const out = [join(ctx.homeDir, '.hermes', 'hermes-agent', 'venv', 'bin', 'hermes')];
  if (ctx.env.HERMES_HOME) out.push(join(ctx.env.HERMES_HOME, 'hermes-agent', 'venv', 'bin', 'hermes'));
  out.push('/usr/local/lib/hermes-agent/venv/bin/hermes');
  return [...new Set(out)];
}

export function findHermes(ctx: ProviderEnv): HermesSearch {
  const tried: string[] = [];
  const explicit = ctx.env.HERMES_BIN?.trim();
  if (explicit) {
    tried.push(`HERMES_BIN=${explicit}`);
    if (isExecutable(explicit, ctx.platform)) return { found: { command: explicit, via: 'HERMES_BIN' }, tried };
    return { tried, badBin: explicit };
  }
  tried.push('PATH');
  const onPath = which('hermes', ctx);
  if (onPath) return { found: { command: onPath, via: 'PATH' }, tried };
  for (const p of hermesLocations(ctx)) {
    tried.push(p);
    if (isExecutable(p, ctx.platform)) return { found: { command: p, via: p }, tried };
  }
  return { tried };
}
