/**
 * Where `talaria acp`'s CPU per frame goes, by who owns the code (issue 15): one unpaced flood
 * through the proxy (as talaria.acp) with the proxy under `--cpu-prof`, each sample over the
 * flood's window (first to last forwarded frame) put to the first owner found on its stack:
 * GC, idle, the recorder and store, the acp forward path (link, raw-update, line-out and the
 * stdout write under it), the core (transport, parse, router, session, thread), the rest.
 *
 * The profiler samples wall time and slows the proxy a little: the split is what this is for, not
 * the absolute figures; on a shared machine a descheduled thread shows as what it was doing.
 *
 *   npx tsx bench/talaria-acp-owners.ts [frames] [runs] [node flags for the proxy…]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runProxyFlood } from './talaria-acp.js';

interface CallFrame {
  functionName: string;
  url: string;
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** First match wins, tested on the whole stack (leaf first). */
const OWNERS: [string, (s: CallFrame[]) => boolean][] = [
  ['gc', (s) => s[0]!.functionName === '(garbage collector)'],
  ['idle', (s) => s[0]!.functionName === '(idle)'],
  ['recorder + store', (s) => s.some((f) => /harness\/recorder|\/store\/|better-sqlite3/.test(f.url))],
  ['acp forward', (s) => s.some((f) => /harness\/acp\/|commands\/acp\./.test(f.url))],
  ['core', (s) => s.some((f) => /\/(protocol|session|thread|host)\//.test(f.url))],
  ['other', () => true],
];

const isForward = (s: CallFrame[]): boolean =>
  s.some((f) => f.functionName === 'forward' && f.url.includes('harness/acp/link'));

/** µs per frame by owner over the flood's window, and the busy total (all but idle). */
export function owners(p: CpuProfile, frames: number): Record<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map<number, CallFrame[]>();
  const stack = (id: number): CallFrame[] => {
    let s = stacks.get(id);
    if (!s) {
      s = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) s.push(byId.get(at)!.callFrame);
      stacks.set(id, s);
    }
    return s;
  };
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push((t += d));
  const fwd = p.samples.map((id) => isForward(stack(id)));
  const first = fwd.indexOf(true);
  const last = fwd.lastIndexOf(true);
  const us: Record<string, number> = {};
  for (let i = Math.max(0, first); i <= last; i++) {
    const owner = OWNERS.find(([, test]) => test(stack(p.samples[i]!)))![0];
    us[owner] = (us[owner] ?? 0) + ((times[i + 1] ?? times[i]!) - times[i]!);
  }
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(us).sort((a, b) => b[1] - a[1])) out[k] = +(v / frames).toFixed(2);
  out.busy = +((Object.values(us).reduce((a, b) => a + b, 0) - (us.idle ?? 0)) / frames).toFixed(2);
  return out;
}

export async function proxyOwners(frames: number, nodeArgs: string[] = []): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-acp-owners-'));
  try {
    const r = await runProxyFlood({ frames, nodeArgs: [...nodeArgs, '--cpu-prof', `--cpu-prof-dir=${dir}`] });
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the proxy wrote no profile');
    return {
      ...owners(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, r.framesSeen),
      proxyCpuUsPerFrame: +r.proxyCpuUsPerFrame.toFixed(1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 100_000);
  const runs = Number(process.argv[3] ?? 1);
  const flags = process.argv.slice(4);
  for (let i = 0; i < runs; i++) process.stdout.write(JSON.stringify(await proxyOwners(frames, flags)) + '\n');
}
