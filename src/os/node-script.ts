/**
 * Running one of the package's own scripts as a child process with this Node (the demo agent, the
 * probe's MCP echo server, the store's check child), one way: the built JavaScript beside the
 * caller; from the TypeScript sources, the checkout's build of the script when dist/ is the build
 * of the sources (bin/freshness.js, the check bin/talaria.js makes), else the TypeScript through
 * tsx, resolved from here (the child's cwd may be a workspace without node_modules). A stale build
 * is never run; a fresh one spares each child compiling TypeScript (~0.4 s of CPU).
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Running from the TypeScript sources (tests, a checkout through tsx), not from dist/. */
const fromSource = !import.meta.url.endsWith('.js');

/** bin/freshness.js: plain JavaScript outside src/, so loaded by URL, and only from the sources. */
const distState: ((root: string) => string) | undefined = fromSource
  ? await import(new URL('../../bin/freshness.js', import.meta.url).href).then(
      (m: { distState?: (root: string) => string }) => m.distState,
      () => undefined,
    )
  : undefined;

const SRC = fileURLToPath(new URL('../', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let fresh: boolean | undefined;
/** Whether dist/ is the build of these sources (decided once per process). */
const distFresh = (): boolean => (fresh ??= distState?.(ROOT) === 'fresh');

export interface NodeScript {
  file: string;
  /** Node options before the file (tsx's loader, or none). */
  execArgv: string[];
}

/** The script `name` (no extension) beside the module `here` (its import.meta.url). */
export function nodeScript(here: string, name: string): NodeScript {
  if (here.endsWith('.js')) {
    const js = fileURLToPath(new URL(`./${name}.js`, here));
    if (existsSync(js)) return { file: js, execArgv: [] };
  }
  const ts = fileURLToPath(new URL(`./${name}.ts`, here));
  if (fromSource && distFresh()) {
    const built = `${ROOT}dist/${relative(SRC, ts).replace(/\.ts$/, '.js')}`;
    if (existsSync(built)) return { file: built, execArgv: [] };
  }
  return { file: ts, execArgv: ['--import', import.meta.resolve('tsx')] };
}

/** The same as a command line: this Node, its options, the file. */
export function nodeScriptCommand(here: string, name: string): { command: string; args: string[] } {
  const s = nodeScript(here, name);
  return { command: process.execPath, args: [...s.execArgv, s.file] };
}
