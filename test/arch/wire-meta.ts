/**
 * Pure leaves the CLI, the harness and the web all read — Hermes' wire meta (delegate_task,
 * lineage) and the cost model: they import nothing (layers.test.ts checks), so the web and the
 * fast path pull in nothing else through them.
 */
export const WIRE_META_READERS = [
  'src/providers/hermes/delegation.ts',
  'src/providers/hermes/provenance.ts',
  'src/session/cost.ts',
];
