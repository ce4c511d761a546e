/**
 * Flood agent: a minimal, correct ACP agent whose only job is to stream `session/update` frames
 * faster than any client can read them, so the CLIENT is the bottleneck being measured. (An agent
 * built on the SDK's agent side tops out near 50k frames/s and would hide the client's cost.)
 *
 *   node --import tsx bench/flood-agent.ts [--frames N] [--rate R] [--chunk-bytes B] [--seed S]
 *   node --import tsx bench/flood-agent.ts --self-test [--frames N]   # producer rate into /dev/null
 *   … --prebuild-load   build the session/load mix before answering initialize, so a timed
 *                       load replay measures the client, not the agent's set-up
 *   … --load-session ID with --prebuild-load: also render that session's whole replay to bytes
 *                       up front (stamped at build time), so during the timed replay the agent
 *                       only writes: on a busy 2-core machine its per-frame rendering otherwise
 *                       competes with the client and the row measured the fake agent as well
 *
 * Protocol: answers `initialize` at once; `session/new` → a fresh session id (several sessions per
 * process are fine); `session/prompt` → floods N frames for that session, then answers
 * `{stopReason: "end_turn", _meta: {framesSent}}`; `session/load` → floods a replay (each turn
 * opens with a user_message_chunk) then answers `{}`; `session/cancel` stops that session's flood
 * (answer `cancelled`). Unknown requests get -32601. A prompt's `params._meta.flood = {frames,
 * rate}` overrides the command line for that turn.
 *
 * Frames are pre-serialized (flood-frames.ts) and written in large chunks (default 64 KiB, the
 * pipe's size) honouring backpressure; each chunk is stamped with its write time (`_meta.t` in
 * the update). `--rate R` paces the turn at R frames/s instead (for latency: a saturated pipe
 * measures queueing, not processing).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { buildTemplates, envelopeFor, renderChunk, stampNow, type FrameTemplate } from './flood-frames.js';

interface FloodConfig {
  frames: number;
  rate: number;
  chunkBytes: number;
  seed: number;
  prebuildLoad: boolean;
  loadSession: string | undefined;
}

function parseArgs(argv: string[]): FloodConfig & { selfTest: boolean } {
  const cfg: FloodConfig & { selfTest: boolean } = {
    frames: 100_000,
    rate: 0,
    chunkBytes: 65_536,
    seed: 1,
    selfTest: false,
    prebuildLoad: false,
    loadSession: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`flood-agent: bad value for ${a}`);
      return v;
    };
    if (a === '--frames') cfg.frames = Math.floor(num());
    else if (a === '--rate') cfg.rate = num();
    else if (a === '--chunk-bytes') cfg.chunkBytes = Math.max(1, Math.floor(num()));
    else if (a === '--seed') cfg.seed = Math.floor(num());
    else if (a === '--self-test') cfg.selfTest = true;
    else if (a === '--prebuild-load') cfg.prebuildLoad = true;
    else if (a === '--load-session') {
      const v = argv[++i];
      if (!v) throw new Error(`flood-agent: --load-session needs a session id`);
      cfg.loadSession = v;
    } else throw new Error(`flood-agent: unknown argument ${a}`);
  }
  return cfg;
}

const cfg = parseArgs(process.argv.slice(2));

// Templates are built once per mix and grown if a turn asks for more.
const cache = new Map<boolean, FrameTemplate[]>();
function templates(n: number, withUser: boolean): FrameTemplate[] {
  let t = cache.get(withUser);
  if (!t || t.length < n) {
    t = buildTemplates(Math.max(n, t?.length ?? 0), { seed: cfg.seed, withUser });
    cache.set(withUser, t);
  }
  return t;
}

/** The replay of `--load-session`, rendered once: chunks of the usual size, as bytes. */
let prebuilt: { sessionId: string; frames: number; chunks: { bytes: Buffer; frames: number }[] } | undefined;
function prebuildReplay(sessionId: string): void {
  const env = envelopeFor(sessionId);
  const tpl = templates(cfg.frames, true);
  const stamp = stampNow().toFixed(3);
  const chunks: { bytes: Buffer; frames: number }[] = [];
  for (let i = 0; i < cfg.frames;) {
    const c = renderChunk(env, tpl, i, cfg.frames, cfg.chunkBytes, stamp);
    chunks.push({ bytes: Buffer.from(c.text), frames: c.next - i });
    i = c.next;
  }
  prebuilt = { sessionId, frames: cfg.frames, chunks };
}

async function write(out: Writable, text: string | Buffer): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Stream `frames` updates for one session; returns how many were written. */
async function flood(
  out: Writable,
  sessionId: string,
  frames: number,
  rate: number,
  withUser: boolean,
  stopped: () => boolean = () => false,
): Promise<number> {
  if (withUser && rate <= 0 && prebuilt?.sessionId === sessionId && prebuilt.frames === frames) {
    let sent = 0;
    // Each chunk holds whole frames: a cancel stops between chunks, and the count stays exact.
    for (const chunk of prebuilt.chunks) {
      if (stopped()) break;
      await write(out, chunk.bytes);
      sent += chunk.frames;
    }
    return sent;
  }
  const env = envelopeFor(sessionId);
  const tpl = templates(frames, withUser);
  let i = 0;
  if (rate <= 0) {
    while (i < frames && !stopped()) {
      const c = renderChunk(env, tpl, i, frames, cfg.chunkBytes, stampNow().toFixed(3));
      i = c.next;
      await write(out, c.text);
    }
    return i;
  }
  // Paced: every tick, write all frames due so far in one chunk.
  const start = performance.now();
  while (i < frames && !stopped()) {
    const elapsed = performance.now() - start;
    const due = Math.min(frames, Math.floor((elapsed * rate) / 1000) + 1);
    if (due > i) {
      const c = renderChunk(env, tpl, i, due, Infinity, stampNow().toFixed(3));
      i = c.next;
      await write(out, c.text);
    } else {
      await sleep(Math.max(0, ((i + 1) * 1000) / rate - elapsed));
    }
  }
  return i;
}

async function selfTest(): Promise<void> {
  const t0 = performance.now();
  templates(cfg.frames, false);
  const built = performance.now();
  const sink = createWriteStream('/dev/null');
  const sent = await flood(sink, 'self-test', cfg.frames, 0, false);
  sink.end();
  await once(sink, 'finish');
  const s = (performance.now() - built) / 1000;
  const line = { selfTest: true, frames: sent, buildMs: built - t0, seconds: s, framesPerSec: sent / s };
  process.stdout.write(JSON.stringify(line) + '\n');
}

type Id = string | number | null;
const out = process.stdout;
const send = (msg: object): Promise<void> => write(out, JSON.stringify(msg) + '\n');
const reply = (id: Id, result: unknown): Promise<void> => send({ jsonrpc: '2.0', id, result });
const fail = (id: Id, code: number, message: string): Promise<void> =>
  send({ jsonrpc: '2.0', id, error: { code, message } });

let sessions = 0;
const cancelled = new Set<string>();

interface FloodOverride {
  frames?: number;
  rate?: number;
}
function override(params: Record<string, unknown>): FloodOverride {
  const meta = params['_meta'];
  const f = meta && typeof meta === 'object' ? (meta as Record<string, unknown>)['flood'] : undefined;
  return f && typeof f === 'object' ? (f as FloodOverride) : {};
}

async function turn(id: Id, sessionId: string, params: Record<string, unknown>, load: boolean): Promise<void> {
  const o = override(params);
  const frames = typeof o.frames === 'number' ? o.frames : cfg.frames;
  const rate = typeof o.rate === 'number' ? o.rate : cfg.rate;
  cancelled.delete(sessionId);
  const sent = await flood(out, sessionId, frames, rate, load, () => cancelled.has(sessionId));
  if (load) return reply(id, { _meta: { framesSent: sent } });
  const stopReason = cancelled.has(sessionId) ? 'cancelled' : 'end_turn';
  return reply(id, { stopReason, _meta: { framesSent: sent } });
}

async function handle(msg: Record<string, unknown>): Promise<void> {
  const method = msg['method'];
  if (typeof method !== 'string') return; // a response to us (we send no requests)
  const hasId = 'id' in msg;
  const id = (msg['id'] ?? null) as Id;
  const params = (msg['params'] ?? {}) as Record<string, unknown>;
  switch (method) {
    case 'initialize':
      if (cfg.prebuildLoad) {
        templates(cfg.frames, true);
        if (cfg.loadSession !== undefined) prebuildReplay(cfg.loadSession);
      }
      await reply(id, {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, promptCapabilities: {}, mcpCapabilities: {} },
        authMethods: [],
        agentInfo: { name: 'talaria-bench-flood', version: '0.1.0' },
      });
      // Pre-build the prompt mix while the client sets up (not for a load run: building it would
      // hold up the replay).
      if (!cfg.prebuildLoad) setImmediate(() => templates(cfg.frames, false));
      return;
    case 'session/new':
      return reply(id, { sessionId: `flood-${process.pid}-${++sessions}` });
    case 'session/prompt':
      return turn(id, String(params['sessionId']), params, false);
    case 'session/load':
      return turn(id, String(params['sessionId']), params, true);
    case 'session/cancel':
      cancelled.add(String(params['sessionId']));
      return;
    default:
      if (hasId) return fail(id, -32601, `Method not found: ${method}`);
  }
}

function serve(): void {
  out.on('error', () => process.exit(0)); // the client went away: nothing left to do
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (!line.trim()) return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      void fail(null, -32700, 'Parse error');
      return;
    }
    if (msg && typeof msg === 'object' && !Array.isArray(msg)) {
      handle(msg as Record<string, unknown>).catch((e: unknown) => {
        process.stderr.write(`flood-agent: ${String(e)}\n`);
      });
    } else void fail(null, -32600, 'Invalid Request');
  });
  // On stdin EOF nothing is left to keep the loop alive once pending writes flush: exit then.
}

if (cfg.selfTest) await selfTest();
else serve();
