/**
 * Start-up through the bare SDK: spawn → initialize → session/new on the demo agent, the median
 * of K runs. The Talaria start-up case measures the same path through Talaria on the same agent.
 *
 * The agent command is configurable (`--startup-agent "<cmd …>"` or TALARIA_BENCH_AGENT); by
 * default it is the demo agent `src/demo/main.ts`, and the case is skipped while that file does
 * not exist yet.
 */
import * as acp from '@agentclientprotocol/sdk';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildChildEnv } from '../src/os/env.js';
import { ROOT, exitGuard, spawnAgent, stopAgent } from './flood-driver.js';
import { childStream } from './sdk-baseline.js';
import { median } from './stats.js';

export const DEMO_AGENT = 'src/demo/main.ts';

export function defaultStartupAgent(): string[] {
  const env = process.env['TALARIA_BENCH_AGENT'];
  if (env && env.trim()) return splitCommand(env);
  return [process.execPath, '--import', 'tsx', DEMO_AGENT];
}

/** Whitespace split with simple '…' / "…" quoting: enough for a command line in a flag. */
export function splitCommand(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/** Why the command cannot run (a script argument that does not exist), or null. */
export function missingAgent(command: readonly string[], root = ROOT): string | null {
  const script = command.find((a) => /\.(ts|js|mjs|cjs)$/.test(a));
  if (!script) return null;
  const path = isAbsolute(script) ? script : join(root, script);
  return existsSync(path) ? null : `agent file ${script} does not exist yet`;
}

/**
 * Run `fn` with an environment whose demo-agent home is a fresh temporary folder (the demo agent
 * records every session/new there), removed afterwards. Talaria's start-up case must use it too,
 * so both paths pay the same disk writes.
 *
 * The environment is the one Talaria gives an agent (the allow-list of buildChildEnv plus the
 * demo home), so the SDK's child starts under the same conditions: with the parent's full
 * environment it would, e.g., load NODE_EXTRA_CA_CERTS at start-up, which Talaria's child does
 * not, and the comparison would measure the environment instead of the client.
 */
export async function withStartupEnv<T>(fn: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-demo-'));
  try {
    return await fn(buildChildEnv(process.env, { set: { TALARIA_DEMO_HOME: home } }));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** One spawn → initialize → session/new through the SDK, in ms. */
export async function sdkStartupOnce(
  command: readonly string[],
  root = ROOT,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const t0 = performance.now();
  const child = spawnAgent(command, root, env);
  const conn = acp.client({ name: 'talaria-bench-startup' }).connect(childStream(child));
  const handshake = async (): Promise<number> => {
    await conn.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    await conn.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    return performance.now() - t0;
  };
  try {
    return await Promise.race([handshake(), exitGuard(child, 'startup')]);
  } finally {
    conn.close();
    await stopAgent(child);
    await conn.closed.catch(() => {});
  }
}

/** Median over `runs` sequential start-ups (each waits for the previous agent to exit). */
export async function runSdkStartup(command: readonly string[], runs: number, root = ROOT): Promise<number> {
  return withStartupEnv(async (env) => {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await sdkStartupOnce(command, root, env));
    return median(times);
  });
}

// Standalone: `node --import tsx bench/startup.ts [runs]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cmd = defaultStartupAgent();
  const missing = missingAgent(cmd);
  if (missing) process.stdout.write(`skipped: ${missing}\n`);
  else process.stdout.write(`${(await runSdkStartup(cmd, Number(process.argv[2] ?? 5))).toFixed(1)} ms\n`);
}
