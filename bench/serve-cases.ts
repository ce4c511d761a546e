/**
 * `talaria serve` cases (issue 10), each judged within its own run: 10 `/ws` clients on one
 * flooding session against the server's in-process subscriber (latency at 5,000 frames/s, gaps,
 * throughput), the server's readiness against `talaria --help`, and memory per idle client.
 */
import { runIdleClients, runServeFlood, runServeReady } from './talaria-serve.js';
import type { BenchCase, Measurement } from './types.js';

const CLIENTS = 10;
/** Client processes: clients are separate browsers; in one process the 10th client waits while the other nine parse each batch. */
const PROCS = 3;
const RATE = 5_000;
const ZERO = { kind: 'equals', expected: 0 } as const;
const SOLO = { case: 'serve.ws', key: 'soloFps', label: 'in-process, no clients (same rep)' };

export const serveCases: BenchCase[] = [
  {
    name: 'serve.ws',
    role: 'candidate',
    description: `${CLIENTS} /ws clients (in ${PROCS} other processes, timed on a shared clock) on one flooding session vs the server's in-process subscriber: paced at ${RATE} frames/s (again with all clients in one process), then unpaced with and without clients`,
    metrics: [
      {
        key: 'clientsP99Ms',
        unit: 'ms',
        label: `serve: ${CLIENTS} clients p99 (agent send → client) @${RATE}/s`,
        baseline: { case: 'serve.ws', key: 'inprocP99Ms', label: 'in-process (same run)' },
        compare: 'delta',
      },
      {
        key: 'addedP99Ms',
        unit: 'ms',
        label: `serve: clients p99 − in-process p99 @${RATE}/s`,
        target: { kind: 'below', limit: 5 },
      },
      { key: 'addedP99OneProcMs', unit: 'ms', label: `serve: the same with all ${CLIENTS} clients in one process` },
      {
        key: 'clientLegP99Ms',
        unit: 'ms',
        label: `serve: p99 of (client receive − in-process receipt), per event, worst client @${RATE}/s`,
      },
      // The server's own share of the above (no client process, no kernel in it): load moves it much less.
      {
        key: 'serverLegP99Ms',
        unit: 'ms',
        label: `serve: server's leg p99 (in-process receipt → written to all ${CLIENTS} sockets) @${RATE}/s`,
      },
      { key: 'serverLegP50Ms', unit: 'ms', label: `serve: server's leg p50 @${RATE}/s` },
      { key: 'gaps', unit: 'events', label: `serve: seq gaps over ${CLIENTS} clients (paced + flood)`, target: ZERO },
      { key: 'resyncs', unit: 'orders', label: 'serve: resync orders (buffer overflows)' },
      {
        key: 'clientsFps',
        unit: 'frames/s',
        label: `serve: throughput to ${CLIENTS} clients (slowest)`,
        baseline: SOLO,
      },
      {
        key: 'fpsRatio',
        unit: '×',
        label: `serve: ${CLIENTS} clients / in-process without clients`,
        target: { kind: 'at-least', min: 0.5 },
      },
      { key: 'sameRunRatio', unit: '×', label: `serve: ${CLIENTS} clients / in-process in the same run` },
      // CPU per frame moves much less with the machine's load than the rates above do.
      {
        key: 'serverCpuUs',
        unit: 'µs/frame',
        label: `serve: server process CPU per frame, ${CLIENTS} clients`,
        baseline: { case: 'serve.ws', key: 'soloCpuUs', label: 'no clients (same rep)' },
      },
      { key: 'clientsCpuUs', unit: 'µs/frame', label: `serve: the ${CLIENTS} clients' processes' CPU per frame (sum)` },
    ],
    run: async (o): Promise<Measurement> => {
      const pacedFrames = Math.min(o.pacedFrames, 10_000);
      const paced = await runServeFlood({ frames: pacedFrames, rate: RATE }, CLIENTS, PROCS);
      const oneProc = await runServeFlood({ frames: pacedFrames, rate: RATE }, CLIENTS, 1);
      const frames = Math.min(o.frames, 20_000);
      const solo = await runServeFlood({ frames }, 0);
      const flood = await runServeFlood({ frames }, CLIENTS, PROCS);
      return {
        notes: [`${PROCS} processes: ${paced.where}`, `1 process: ${oneProc.where}`],
        values: {
          clientsP99Ms: paced.clientsP99Ms,
          inprocP99Ms: paced.inprocP99Ms,
          addedP99Ms: paced.clientsP99Ms - paced.inprocP99Ms,
          addedP99OneProcMs: oneProc.clientsP99Ms - oneProc.inprocP99Ms,
          clientLegP99Ms: paced.clientLegP99Ms,
          serverLegP99Ms: paced.serverLegP99Ms,
          serverLegP50Ms: paced.serverLegP50Ms,
          pacedFps: paced.inprocFps,
          gaps: paced.gaps + oneProc.gaps + flood.gaps,
          resyncs: paced.resyncs + oneProc.resyncs + flood.resyncs,
          clientsFps: flood.clientsFps,
          soloFps: solo.inprocFps,
          fpsRatio: flood.clientsFps / solo.inprocFps,
          sameRunRatio: flood.clientsFps / flood.inprocFps,
          serverCpuUs: flood.serverCpuUsPerFrame,
          soloCpuUs: solo.serverCpuUsPerFrame,
          clientsCpuUs: flood.clientsCpuUsPerFrame,
        },
      };
    },
  },
  {
    name: 'serve.ready',
    role: 'candidate',
    description:
      '`talaria serve` until GET /api/health answers 200, against the CLI start-up of talaria.cli (`talaria run --agent demo`) and `talaria --help`, rotating in rounds',
    metrics: [
      {
        key: 'readyMs',
        unit: 'ms',
        label: 'serve: ready (health 200)',
        baseline: { case: 'serve.ready', key: 'runMs', label: 'talaria run --agent demo (same rounds)' },
      },
      {
        key: 'readyRatio',
        unit: '×',
        label: 'serve ready / talaria run --agent demo (per round)',
        target: { kind: 'at-most', max: 1.2 },
      },
      {
        key: 'readyMs',
        unit: 'ms',
        label: 'serve: ready (health 200)',
        baseline: { case: 'serve.ready', key: 'helpMs', label: 'talaria --help (same rounds)' },
      },
      { key: 'helpRatio', unit: '×', label: 'serve ready / talaria --help (per round)' },
    ],
    run: async (o) => ({ samples: await runServeReady(o.startupRuns) }),
  },
  {
    name: 'serve.idle',
    role: 'candidate',
    isolate: true,
    description:
      'server heap per idle attached /ws client (100 clients in another process, subscribed to an idle session; fresh process)',
    metrics: [{ key: 'kbPerClient', unit: 'KB', label: 'serve: memory per idle attached client' }],
    run: async (o) => {
      const r = await runIdleClients(o.quick ? 10 : 100);
      return {
        values: { kbPerClient: r.kbPerClient, clients: r.clients, heapBefore: r.heapBefore, heapAfter: r.heapAfter },
        notes: r.gc ? [] : ['no gc available: the heap delta includes garbage'],
      };
    },
  },
];
