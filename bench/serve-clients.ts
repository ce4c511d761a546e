/**
 * The `/ws` clients of the serve bench, in their own process (as browsers are): N clients
 * subscribe to one session; each records (seq, receive stamp) per event, seq holes after
 * `synced` and resync orders. Protocol on stdio (one JSON line each):
 *   argv: origin token sessionId N
 *   → stdout {"ready":true} once every client is synced
 *   ← stdin  {"endSeq":S}: the turn's last seq
 *   → stdout {"clients":[{seqs,at,gaps,resyncs}…],"cpuUs":C,"gc":[[start,ms]…]} once every client
 *     reached S (or was cut off); C: this process's CPU time since ready; gc: this process's GC
 *     pauses since ready (start on the shared clock), to see whether the slow samples are GC's
 * The bench runs several of these processes (as clients are separate browsers), each timing its own
 * clients on the clock every process shares (performance.timeOrigin + now()).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { stampNow } from './flood-frames.js';

interface Rec {
  seqs: number[];
  at: number[];
  gaps: number;
  resyncs: number;
  last: number;
  synced: boolean;
}

const [origin, token, sessionId, nText] = process.argv.slice(2);
const n = Number(nText);
const recs: Rec[] = [];
let endSeq = Infinity;
let readyCount = 0;
let reported = false;
/** CPU of this process once every client is synced: its cost of the turn is reported against it. */
let cpuAtReady: NodeJS.CpuUsage | undefined;
const gc: [number, number][] = [];
new PerformanceObserver((list) => {
  if (cpuAtReady) for (const e of list.getEntries()) gc.push([performance.timeOrigin + e.startTime, e.duration]);
}).observe({ entryTypes: ['gc'] });

function maybeDone(): void {
  if (reported || endSeq === Infinity) return;
  if (!recs.every((r) => r.last >= endSeq || r.resyncs > 0)) return;
  reported = true;
  const clients = recs.map(({ seqs, at, gaps, resyncs }) => ({ seqs, at, gaps, resyncs }));
  const { user, system } = process.cpuUsage(cpuAtReady);
  process.stdout.write(JSON.stringify({ clients, cpuUs: user + system, gc }) + '\n', () => process.exit(0));
}

for (let i = 0; i < n; i++) {
  const r: Rec = { seqs: [], at: [], gaps: 0, resyncs: 0, last: 0, synced: false };
  recs.push(r);
  const ws = new WebSocket(`${origin!.replace(/^http/, 'ws')}/ws`, ['talaria', `talaria.token.${token}`], {
    perMessageDeflate: false,
  });
  ws.on('message', (d) => {
    const now = stampNow();
    const m = JSON.parse(d.toString()) as { type: string; events?: { seq: number }[]; snapshot?: { seq: number } };
    if (m.type === 'welcome') ws.send(JSON.stringify({ type: 'subscribe', sessionId }));
    else if (m.type === 'snapshot') r.last = m.snapshot!.seq;
    else if (m.type === 'synced') {
      r.synced = true;
      if (++readyCount === n) {
        cpuAtReady = process.cpuUsage();
        process.stdout.write('{"ready":true}\n');
      }
    } else if (m.type === 'resync') {
      r.resyncs++;
      maybeDone();
    } else if (m.type === 'events' && m.events) {
      for (const { seq } of m.events) {
        if (r.synced && seq !== r.last + 1) r.gaps++;
        r.last = seq;
        r.seqs.push(seq);
        r.at.push(now);
      }
      if (r.last >= endSeq) maybeDone();
    }
  });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  endSeq = (JSON.parse(line) as { endSeq: number }).endSeq;
  maybeDone();
});
