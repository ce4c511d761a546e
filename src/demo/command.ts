import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

/** Running from the TypeScript sources (tests, a checkout through tsx), not from dist/. */
const fromSource = !import.meta.url.endsWith('.js');

/**
 * From the sources, whether the checkout's dist/ is the build of them: bin/freshness.js, the check
 * bin/talaria.js makes (plain JavaScript outside src/, so loaded by URL and only here).
 */
const distState: ((root: string) => string) | undefined = fromSource
  ? await import(new URL('../../bin/freshness.js', import.meta.url).href).then(
      (m: { distState?: (root: string) => string }) => m.distState,
      () => undefined,
    )
  : undefined;

let built: string | undefined | null = null;

/** The built demo agent of this checkout when dist/ is fresh (decided once per process). */
function freshBuild(): string | undefined {
  if (built !== null) return built;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const js = fileURLToPath(new URL('../../dist/demo/main.js', import.meta.url));
  built = distState?.(root) === 'fresh' && existsSync(js) ? js : undefined;
  return built;
}

/**
 * How to start the bundled demo agent with this Node: from the compiled package (dist/demo/main.js),
 * or from source through tsx when running uncompiled and the build is not fresh. Tests import the
 * sources; when `npm ci` has built them, their demo agents start without compiling TypeScript
 * (~0.4 s of CPU each).
 */
export function demoAgentCommand(): { command: string; args: string[] } {
  const js = fromSource ? freshBuild() : fileURLToPath(new URL('./main.js', import.meta.url));
  if (js !== undefined && existsSync(js)) return { command: process.execPath, args: [js] };
  const ts = fileURLToPath(new URL('./main.ts', import.meta.url));
  // Resolve tsx from here, not from the agent's cwd (a user workspace has no node_modules/tsx).
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), ts] };
}
