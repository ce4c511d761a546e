import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { place, serve, tempDir } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const AGENT = fileURLToPath(new URL('../fakes/bin/auth-agent.ts', import.meta.url));

/** A real server whose `authfake` agent (test/fakes/bin/auth-agent.ts) refuses sessions until `agentConfig` exists. */
export async function setupAuthServer() {
  const p = place();
  const agentConfig = join(tempDir('auth-agent'), 'agent-config.json');
  writeFileSync(
    join(p.home, 'config.json'),
    JSON.stringify({
      agents: { authfake: { command: process.execPath, args: [...nodeArgs(AGENT), '--config', agentConfig] } },
    }),
  );
  const s = await serve({ p });
  return { s, p, agentConfig };
}
