/** The wire summary row: every frame validated against the ACP schema per method, plus stdout noise. */
import { plural, result } from './context.js';
import type { Recorder } from './recorder.js';
import type { CheckResult } from './types.js';

export function wireRow(rec: Recorder): CheckResult {
  const title = 'wire schema';
  const s = rec.summary();
  const methods = [
    ...new Set(
      s.unknownMethods.map((u) => `${u.method} (${u.reason === 'extension' ? 'extension' : 'not in the schema'})`),
    ),
  ];
  const evidence = [
    ...s.violations.slice(0, 20),
    ...(s.violations.length > 20 ? [`… ${s.violations.length - 20} more`] : []),
    ...s.protocolErrors.slice(0, 10).map((p) => `[${p.check}] stdout ${p.kind}: ${p.preview}`),
    ...(methods.length ? [`unknown methods (listed, not failed): ${methods.join(', ')}`] : []),
  ];
  const data = {
    ...s.stats,
    violationLines: s.violations.length,
    protocolErrors: s.protocolErrors.length,
    unknownMethods: methods,
  };
  const counts = `${plural(s.stats.frames, 'frame')} checked; ${plural(s.violations.length, 'violation')}; ${plural(s.protocolErrors.length, 'non-JSON-RPC stdout line')}; ${plural(methods.length, 'unknown method')}`;
  if (s.violations.length || s.protocolErrors.length) return result('wire', title, 'broken', counts, evidence, data);
  return result('wire', title, 'works', counts, evidence, data);
}
