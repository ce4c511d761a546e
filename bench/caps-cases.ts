/**
 * The caps face (issue 12): one isolated case — the caps code locks its process down (SES), which
 * must not reach the other cases — measured against an NDJSON JSON-RPC echo in the same run.
 */
import type { BenchCase, Measurement } from './types.js';

export const capsCases: BenchCase[] = [
  {
    name: 'caps',
    role: 'candidate',
    description:
      'CapTP over a WebSocket (locked down): round trip vs an NDJSON JSON-RPC echo, facts pushed to a remote sink, dataspace churn with 100 observers, heap over 50,000 calls',
    isolate: true,
    metrics: [
      {
        key: 'capsUs',
        unit: 'µs',
        label: 'caps: round trip (median, sequential)',
        baseline: { case: 'caps', key: 'echoUs', label: 'NDJSON JSON-RPC echo (same run)' },
      },
      { key: 'pushedPerS', unit: 'updates/s', label: 'caps: facts pushed to a remote sink' },
      {
        key: 'churnPerS',
        unit: 'ops/s',
        label: 'caps: dataspace assert+retract, 100 observers',
        target: { kind: 'at-least', min: 10_000 },
      },
      {
        key: 'memGrowthMb',
        unit: 'MB',
        label: 'caps: heap growth over the last 40,000 of 50,000 calls (largest sample after a GC every 5,000)',
        target: { kind: 'below', limit: 8 },
      },
      {
        key: 'liveExports',
        unit: 'objects',
        label: 'caps: objects the host exported over 50,000 calls still alive at the end',
        target: { kind: 'below', limit: 100 },
      },
    ],
    run: async (o): Promise<Measurement> => ({ values: await (await import('./talaria-caps.js')).runCaps(o) }),
  },
];
