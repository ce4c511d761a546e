/**
 * The SDK baseline: the official ACP client (`acp.client()` + `ndJsonStream`) consuming the same
 * flood with a no-op `session/update` handler (it only counts and reads the stamp). This is what
 * any client built straight on the SDK pays per frame: line framing, zod validation, routing.
 */
import * as acp from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  ROOT,
  cpuMs,
  exitGuard,
  floodResult,
  framesSentOf,
  LatencyRecorder,
  spawnFlood,
  stampOf,
  stopAgent,
} from './flood-driver.js';
import type { AgentChild, FloodParams, FloodResult } from './flood-driver.js';

/** `ndJsonStream` over a child's pipes (the SDK has no spawn helper). */
export function childStream(child: AgentChild): acp.Stream {
  return acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
}

export async function runSdkBaseline(p: FloodParams): Promise<FloodResult> {
  const child = spawnFlood(p);
  const rec = new LatencyRecorder(p.frames);
  let seen = 0;
  let t0 = 0;
  let c0 = 0;
  const conn = acp
    .client({ name: 'talaria-bench-sdk' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (seen++ === 0) {
        t0 = performance.now();
        c0 = cpuMs();
      }
      rec.record(stampOf(params.update));
    })
    .connect(childStream(child));
  const turn = async (): Promise<FloodResult> => {
    await conn.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: ROOT, mcpServers: [] });
    const res = await conn.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'flood' }],
    });
    return floodResult(framesSentOf(res), seen, t0, performance.now(), rec, cpuMs() - c0);
  };
  try {
    return await Promise.race([turn(), exitGuard(child, 'sdk baseline')]);
  } finally {
    conn.close();
    await stopAgent(child);
    await conn.closed.catch(() => {});
  }
}

// Standalone: `node --import tsx bench/sdk-baseline.ts [frames]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 100_000);
  const r = await runSdkBaseline({ frames });
  process.stdout.write(JSON.stringify(r) + '\n');
}
