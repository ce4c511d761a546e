/**
 * A process with two hosts for the instance tests: each runs the tool agent, which leaves one
 * process outside its group (setsid -f). Prints what it sees after host A's dispose(), then on a
 * line on stdin exits WITHOUT disposing host B (B's own exit hook must end B's tree).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentHost } from '../../src/host/host.js';
import { createRegistry } from '../../src/providers/registry.js';
import { scriptAgent } from './helpers.js';

const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
const base = process.listenerCount('exit');
const ws = mkdtempSync(join(tmpdir(), 'two-hosts-'));
const mk = () =>
  new AgentHost({
    registry: createRegistry({ extra: [scriptAgent('tools', 'tool-agent.ts')] }),
    terminateGraceMs: 300,
  });

async function start(host: AgentHost, name: string): Promise<{ agent: number; work: number }> {
  const s = await host.newSession({ provider: 'tools', workspace: ws });
  await s.prompt('pid').result;
  const agent = Number((s.thread.entries.at(-1) as { text: string }).text);
  await s.prompt(`bg setsid -f sh -c 'echo $$ > ${ws}/${name}.pid; exec sleep 1000'`).result;
  const file = join(ws, `${name}.pid`);
  const deadline = Date.now() + 30_000;
  while (!existsSync(file) || !readFileSync(file, 'utf8').includes('\n')) {
    if (Date.now() > deadline) throw new Error(`${name}: no pid file after 30 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return { agent, work: Number(readFileSync(file, 'utf8')) };
}

const a = mk();
const b = mk();
const pa = await start(a, 'a');
const pb = await start(b, 'b');
const hooks = process.listenerCount('exit') - base;
await a.dispose();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
process.stdout.write(
  JSON.stringify({
    a: pa,
    b: pb,
    hooks,
    hooksAfterDispose: process.listenerCount('exit') - base,
    aliveAfterDispose: { a: [alive(pa.agent), alive(pa.work)], b: [alive(pb.agent), alive(pb.work)] },
    warnings,
  }) + '\n',
);
process.stdin.once('data', () => process.exit(0));
