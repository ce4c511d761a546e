/** Shared setup for provider tests: temp dirs, fake executables, a ProviderEnv for them. */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderEnv } from '../../src/providers/types.js';

export const HERMES_WRAPPER = fileURLToPath(new URL('../fakes/hermes/bin/hermes', import.meta.url));
export const TSX = import.meta.resolve('tsx');
export const FAKE = (name: string) => fileURLToPath(new URL(`../fakes/bin/${name}`, import.meta.url));
export const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

export { pidAlive as alive } from '../../src/os/proc-scan.js';

const roots: string[] = [];
export function tempDir(prefix = 'talaria-prov-'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  roots.push(d);
  return d;
}
export function cleanup(): void {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes an executable shell script. */
export function script(path: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A `hermes` that runs the emulator (exec, so the pid is the emulator's). */
export function hermesAt(path: string): string {
  return script(path, `exec "${HERMES_WRAPPER}" "$@"`);
}

/** An isolated machine: empty PATH but the system basics, a fresh home. */
export function isolatedEnv(
  o: { env?: Record<string, string | undefined>; homeDir?: string; searchPath?: string[] } = {},
): ProviderEnv {
  const homeDir = o.homeDir ?? tempDir('home-');
  return {
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: homeDir, ...(o.env ?? {}) },
    homeDir,
    platform: process.platform,
    ...(o.searchPath ? { searchPath: o.searchPath } : {}),
  };
}

/** True while a process exists and is not a zombie. */
