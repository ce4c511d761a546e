/** Paths and spawn specs for the raw fake executables in test/fakes/bin. */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../prebuilt.js';

/** tsx's loader by absolute path, so children may run in any cwd. */
export const TSX_LOADER = createRequire(import.meta.url).resolve('tsx');
export const FAKES_DIR = fileURLToPath(new URL('../fakes/bin/', import.meta.url));
export const PROJECT_DIR = fileURLToPath(new URL('../../', import.meta.url));

export type FakeName =
  | 'echo-agent'
  | 'crash-mid-turn'
  | 'hang'
  | 'garbage-stdout'
  | 'slow-start'
  | 'exit-during-initialize'
  | 'close-stdout'
  | 'print-env'
  | 'hostile-agent';

export function fake(name: FakeName, ...args: string[]): { command: string; args: string[]; cwd: string } {
  return {
    command: process.execPath,
    args: [...nodeArgs(FAKES_DIR + name + '.ts'), ...args],
    cwd: PROJECT_DIR,
  };
}
