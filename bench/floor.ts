/**
 * The floor: the least any client can do with the flood — split lines, `JSON.parse`, count. A
 * client that reaches this reads as fast as Node can. Also the pipe ceiling (count newlines, no
 * parse), which shows the producer and the pipe are not what limits the floor.
 *
 * The handshake is real but minimal: initialize → session/new → session/prompt, each sent after
 * the previous answer, as any ACP client would.
 */
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
import type { FloodParams, FloodResult } from './flood-driver.js';

const line = (id: number, method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';

const INIT = line(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
const NEW = line(2, 'session/new', { cwd: ROOT, mcpServers: [] });
const prompt = (sessionId: string): string =>
  line(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'flood' }] });

interface RpcMessage {
  id?: number;
  method?: string;
  params?: { update?: Record<string, unknown> };
  result?: { sessionId?: string };
  error?: unknown;
}

/**
 * What the floor keeps with `keep`: the least a client that shows the conversation holds — each
 * message's text, grown chunk by chunk (consecutive chunks of one kind are one message), and each
 * tool call's latest fields. No events, no snapshots, no checks: what retaining the conversation
 * costs in allocation and garbage collection, and nothing else.
 */
export class Kept {
  readonly messages: { kind: unknown; text: string }[] = [];
  readonly calls = new Map<unknown, Record<string, unknown>>();

  add(u: Record<string, unknown> | undefined): void {
    if (!u) return;
    const kind = u.sessionUpdate;
    if (kind === 'agent_message_chunk' || kind === 'agent_thought_chunk' || kind === 'user_message_chunk') {
      const text = (u.content as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string') return;
      const last = this.messages[this.messages.length - 1];
      if (last !== undefined && last.kind === kind) last.text += text;
      else this.messages.push({ kind, text });
    } else if (kind === 'tool_call' || kind === 'tool_call_update') {
      const old = this.calls.get(u.toolCallId);
      this.calls.set(u.toolCallId, old ? { ...old, ...u } : u);
      if (!old) this.messages.push({ kind: undefined, text: '' }); // a new call ends the message before it
    }
  }
}

export async function runFloor(p: FloodParams & { keep?: boolean }): Promise<FloodResult> {
  const child = spawnFlood(p);
  const rec = new LatencyRecorder(p.frames);
  const kept = p.keep ? new Kept() : undefined;
  let seen = 0;
  let t0 = 0;
  let c0 = 0;
  const done = new Promise<FloodResult>((resolve, reject) => {
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      try {
        consume(chunk);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e))); // garbage on stdout: fail the run, not the process
      }
    });
    const consume = (chunk: string): void => {
      const buf = pending + chunk;
      let start = 0;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n', start)) {
        const msg = JSON.parse(buf.slice(start, nl)) as RpcMessage;
        start = nl + 1;
        if (msg.method === 'session/update') {
          if (seen++ === 0) {
            t0 = performance.now();
            c0 = cpuMs();
          }
          rec.record(stampOf(msg.params?.update));
          kept?.add(msg.params?.update);
        } else if (msg.error !== undefined) {
          reject(new Error(`floor: agent answered ${msg.id} with ${JSON.stringify(msg.error)}`));
        } else if (msg.id === 1) {
          child.stdin.write(NEW);
        } else if (msg.id === 2) {
          child.stdin.write(prompt(String(msg.result?.sessionId)));
        } else if (msg.id === 3) {
          resolve(floodResult(framesSentOf(msg.result), seen, t0, performance.now(), rec, cpuMs() - c0));
        }
      }
      pending = buf.slice(start);
    };
    child.stdin.write(INIT);
  });
  try {
    return await Promise.race([done, exitGuard(child, 'floor')]);
  } finally {
    await stopAgent(child);
  }
}

/**
 * Pipe ceiling: read the same flood counting newlines only. The three requests are pipelined
 * (the flood agent accepts them in one go); done when all frames + 3 answers have arrived.
 */
export async function runPipeCeiling(p: FloodParams): Promise<FloodResult> {
  const child = spawnFlood(p);
  const expected = p.frames + 3;
  let lines = 0;
  let t0 = 0;
  const done = new Promise<FloodResult>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (t0 === 0 && lines >= 2) t0 = performance.now();
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (lines >= expected) resolve(floodResult(p.frames, lines - 3, t0, performance.now()));
    });
    child.stdin.write(INIT + NEW + prompt('ceiling'));
  });
  try {
    return await Promise.race([done, exitGuard(child, 'pipe ceiling')]);
  } finally {
    await stopAgent(child);
  }
}

// Standalone: `node --import tsx bench/floor.ts [frames]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 100_000);
  const r = await runFloor({ frames });
  process.stdout.write(JSON.stringify(r) + '\n');
}
