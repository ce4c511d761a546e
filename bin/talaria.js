#!/usr/bin/env node
// The `talaria` command. It runs the built JavaScript (dist/) whenever that is the build of the
// sources beside it — always in an installed package, in a checkout after `npm ci` or `npm run
// build` — and otherwise the TypeScript sources through tsx (resolved from this package), so an
// edited checkout never runs stale code.
import { fileURLToPath } from 'node:url';
import { distState } from './freshness.js';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/cli/main.js', root).href;
const state = distState(fileURLToPath(root));

function tsxRegister() {
  try {
    return import(import.meta.resolve('tsx/esm/api')).then((m) => m.register);
  } catch {
    return undefined; // not installed (a production install of a checkout)
  }
}

const register = state === 'fresh' ? undefined : await tsxRegister();
if (state === 'fresh' || (state === 'stale' && !register)) {
  await import(dist);
} else if (register) {
  register();
  await import(new URL('src/cli/main.ts', root).href);
} else {
  process.stderr.write(
    'talaria: this checkout is not built and tsx is not installed: run `npm ci` (or `npm run build`)\n',
  );
  process.exitCode = 1;
}
