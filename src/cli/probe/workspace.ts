/** The probe's scratch workspace: the agent's cwd (seeded with notes.txt), an empty second folder, the MCP log. */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeWorkspace } from './context.js';
import { SEED_FILE } from './types.js';

export function makeWorkspace(parent: string | undefined): { root: string; ws: ProbeWorkspace } {
  // realpath: agents compare cwds after resolving symlinks (macOS /var → /private/var).
  const root = realpathSync(mkdtempSync(join(parent ?? tmpdir(), 'talaria-probe-')));
  const cwd = join(root, 'work');
  const otherCwd = join(root, 'other');
  mkdirSync(cwd);
  mkdirSync(otherCwd);
  const seedText = 'Talaria probe notes.\nThe magic word is "albatross".\n';
  writeFileSync(join(cwd, SEED_FILE), seedText);
  return { root, ws: { cwd, otherCwd, mcpLog: join(root, 'mcp-server.log'), seedText } };
}
