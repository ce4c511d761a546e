/**
 * `talaria acp` on the hot path: the same flood agent driven directly (core flood case) and through
 * `talaria acp --agent-cmd "<flood agent>"` (a second process: harness, recorder, raw forwarding,
 * editor-side JSON-RPC), in the same run. Throughput ratio (proxy / direct, unpaced) and the p99
 * latency a frame gains through the proxy (paced, agent stamp → consumer).
 *
 *   npx tsx bench/talaria-acp.ts [frames] [pacedRate] [pacedFrames]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AcpClient } from '../src/session/client.js';
import { ROOT, cpuMs, floodArgs, floodResult, framesSentOf, FLOOD_AGENT, type FloodParams, type FloodResult } from './flood-driver.js';
import { runTalariaFlood } from './talaria-flood.js';
import { UpdateProbe } from './talaria-probe.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

export async function runProxyFlood(p: FloodParams): Promise<FloodResult> {
  const home = mkdtempSync(join(tmpdir(), 'talaria-bench-acp-'));
  const inner = [process.execPath, '--import', 'tsx', FLOOD_AGENT, ...floodArgs(p)].map((w) => `'${w}'`).join(' ');
  const probe = new UpdateProbe(p.frames, true, false);
  const client = await AcpClient.spawn(
    { command: '/usr/bin/env', args: [`TALARIA_HOME=${home}`, process.execPath, '--import', 'tsx', MAIN, 'acp', '--cwd', ROOT, '--agent-cmd', inner], cwd: ROOT },
    { fs: false, terminal: false, hooks: { mapUpdate: probe.mapUpdate } },
  );
  try {
    const session = await client.newSession({ cwd: ROOT });
    session.subscribe(probe.onEvent);
    const result = await session.prompt('flood').result;
    const t1 = performance.now();
    if (result.error) throw new Error(`proxy flood: turn failed: ${result.error.code}: ${result.error.message}`);
    return floodResult(framesSentOf(result.response), probe.seen, probe.t0, t1, probe.rec, cpuMs() - probe.c0);
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 20_000);
  const rate = Number(process.argv[3] ?? 2_000);
  const paced = Number(process.argv[4] ?? 4_000);
  const direct = await runTalariaFlood({ frames });
  const proxy = await runProxyFlood({ frames });
  const directPaced = await runTalariaFlood({ frames: paced, rate });
  const proxyPaced = await runProxyFlood({ frames: paced, rate });
  const out = {
    frames,
    throughput: {
      directFps: Math.round(direct.framesPerSec),
      proxyFps: Math.round(proxy.framesPerSec),
      ratio: +(proxy.framesPerSec / direct.framesPerSec).toFixed(3),
      lost: proxy.framesSent - proxy.framesSeen,
    },
    pacedRate: rate,
    latencyP99Ms: { direct: +directPaced.latency.p99.toFixed(3), proxy: +proxyPaced.latency.p99.toFixed(3), added: +(proxyPaced.latency.p99 - directPaced.latency.p99).toFixed(3) },
    latencyP50Ms: { direct: +directPaced.latency.p50.toFixed(3), proxy: +proxyPaced.latency.p50.toFixed(3) },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}
