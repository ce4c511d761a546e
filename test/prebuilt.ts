/**
 * Fake agents and test children start as prebuilt bundles, not through tsx: tsx's loader costs
 * ~0.35 s of CPU per process (0.53 s against 0.18 s for the SDK fake's start), and the suite
 * starts well over a thousand of them. `test/global-setup.ts` bundles the entries below once per
 * vitest run (esbuild, packages left in node_modules) and sets TALARIA_TEST_PREBUILT; a file not
 * prebuilt, or a process outside vitest, still runs through tsx.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_DIR = fileURLToPath(new URL('../', import.meta.url));
/** Inside the checkout, so a bundle resolves its packages from the checkout's node_modules. */
export const BUILT_DIR = fileURLToPath(new URL('./.built/', import.meta.url));
// createRequire, not import.meta.resolve: vitest's globalSetup runner has no import.meta.resolve.
const TSX = createRequire(import.meta.url).resolve('tsx');

/** Scripts tests start as processes (paths from the repository root). */
export const PREBUILT_ENTRIES: readonly string[] = [
  'test/fakes/sdk-agent.ts',
  'test/fakes/effects-agent.ts',
  'test/fakes/hermes/emulator.ts',
  'test/fakes/bin/auth-agent.ts',
  'test/fakes/bin/cancel-ignorer.ts',
  'test/fakes/bin/close-stdout.ts',
  'test/fakes/bin/crash-mid-turn.ts',
  'test/fakes/bin/echo-agent.ts',
  'test/fakes/bin/exit-during-initialize.ts',
  'test/fakes/bin/extension-agent.ts',
  'test/fakes/bin/fixture-agent.ts',
  'test/fakes/bin/garbage-stdout.ts',
  'test/fakes/bin/hang.ts',
  'test/fakes/bin/host-agent.ts',
  'test/fakes/bin/hostile-agent.ts',
  'test/fakes/bin/mcp-reject-agent.ts',
  'test/fakes/bin/print-env.ts',
  'test/fakes/bin/slow-start.ts',
  'test/fakes/bin/tool-agent.ts',
  'test/acp/flood-agent.ts',
  'test/acp/proxy-agent.ts',
  'test/acp/raw-agent.ts',
];

export const bundleOf = (entry: string) => BUILT_DIR + entry.replace(/\.ts$/, '.mjs');

/** Node arguments that run `file` (an absolute path or a file: URL): its bundle when prebuilt, else tsx. */
export function nodeArgs(file: string): string[] {
  const path = file.startsWith('file:') ? fileURLToPath(file) : file;
  const bundle = bundleOf(relative(REPO_DIR, path));
  if (process.env.TALARIA_TEST_PREBUILT === BUILT_DIR && existsSync(bundle)) return [bundle];
  return ['--import', TSX, path];
}

/** The same as one command line (double-quoted words), for `--agent-cmd`, configs and wrapper scripts. */
export function nodeCommand(file: string): string {
  return [process.execPath, ...nodeArgs(file)].map((w) => `"${w}"`).join(' ');
}
