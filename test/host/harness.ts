/**
 * A harness process for the orphan test: hosts an agent that forks a grandchild, prints
 * {"agent","child"} pids, waits for a line on stdin, then either shuts the host down
 * (`shutdown`) or just exits (`exit`: the host's exit hook must clean up).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentHost } from '../../src/host/host.js';
import { createRegistry } from '../../src/providers/registry.js';
import { scriptAgent } from './helpers.js';

const mode = process.argv[2] ?? 'shutdown';
const host = new AgentHost({
  registry: createRegistry({ extra: [scriptAgent('tree', 'host-agent.ts')] }),
  terminateGraceMs: 300,
});
const s = await host.newSession({ provider: 'tree', workspace: mkdtempSync(join(tmpdir(), 'harness-')) });
await s.prompt('fork').result;
const last = s.thread.entries.filter((e) => e.kind === 'assistant_message').at(-1) as { text: string };
process.stdout.write(last.text + '\n');
process.stdin.once('data', async () => {
  if (mode === 'shutdown') await host.shutdown();
  process.exit(0);
});
