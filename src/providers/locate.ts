/**
 * Finding executables without a shell: PATH (plus extra folders first), PATHEXT on Windows,
 * `~` expansion for paths users write in config files.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, win32 } from 'node:path';
import type { Located, ProviderEnv } from './types.js';

export function isExecutable(path: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform === 'win32') return true;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `~` and `~/x` → the home dir; `$HOME`/`${HOME}` style variables are left alone on purpose. */
export function expandHome(p: string, homeDir: string): string {
  if (p === '~') return homeDir;
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(homeDir, p.slice(2));
  return p;
}

function pathDirs(ctx: ProviderEnv): string[] {
  const sep = ctx.platform === 'win32' ? ';' : ctx.platform === process.platform ? delimiter : ':';
  const raw = ctx.env.PATH ?? ctx.env.Path ?? '';
  return [...(ctx.searchPath ?? []), ...raw.split(sep)].filter((d) => d !== '');
}

/**
 * The first executable called `name` on the search path, or undefined. A name with a path
 * separator is checked as given (relative to nothing: callers pass absolute paths).
 */
export function which(name: string, ctx: ProviderEnv): string | undefined {
  const expanded = expandHome(name, ctx.homeDir);
  const win = ctx.platform === 'win32';
  const exts = win ? ['', ...(ctx.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  if (isAbsolute(expanded) || (win && win32.isAbsolute(expanded)) || expanded.includes('/')) {
    for (const ext of exts) if (isExecutable(expanded + ext, ctx.platform)) return expanded + ext;
    return undefined;
  }
  for (const dir of pathDirs(ctx)) {
    for (const ext of exts) {
      const p = join(dir, name + ext);
      if (isExecutable(p, ctx.platform)) return p;
    }
  }
  return undefined;
}

/** The machine this process runs on, as a ProviderEnv. */
export function currentEnv(overrides: Partial<ProviderEnv> = {}): ProviderEnv {
  return {
    env: process.env,
    homeDir: homedir(),
    platform: process.platform,
    memo: new Map(),
    ...overrides,
  };
}

/** A `locate` for agents found by command name on PATH, started with fixed arguments. */
export function onPath(name: string, args: readonly string[]) {
  return async (ctx: ProviderEnv): Promise<Located | undefined> => {
    const found = which(name, ctx);
    return found ? { command: found, args: [...args], via: 'PATH' } : undefined;
  };
}
