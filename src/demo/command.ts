import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

/**
 * How to start the bundled demo agent with this Node: from the compiled package (dist/demo/main.js),
 * or from source through tsx when running uncompiled (tests, `npm start` in a checkout).
 */
export function demoAgentCommand(): { command: string; args: string[] } {
  const js = fileURLToPath(new URL('./main.js', import.meta.url));
  if (import.meta.url.endsWith('.js') && existsSync(js)) return { command: process.execPath, args: [js] };
  const ts = fileURLToPath(new URL('./main.ts', import.meta.url));
  // Resolve tsx from here, not from the agent's cwd (a user workspace has no node_modules/tsx).
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), ts] };
}
