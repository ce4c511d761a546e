import { describe, expect, it } from 'vitest';
import { readProvenance, reopenTarget } from '../../../src/providers/hermes/provenance.js';
import { loadReal } from '../../fakes/hermes/fixture-driver.js';

const ROOT = 'e367adca-3b85-42ff-869e-7be2c03ee42e';
const CONT = '20261206_070847_d6e55a';
/** The rotation update's `_meta` exactly as a built Hermes 0.18.2 sent it (fixture 12-compression-rotate). */
const rotationMeta = () =>
  loadReal('12-compression-rotate')
    .map((l) => l.msg.params?.update)
    .find(
      (u) =>
        u?.sessionUpdate === 'session_info_update' && u._meta.hermes.sessionProvenance.sessionKind === 'continuation',
    )._meta;

describe('Hermes sessionProvenance', () => {
  it('reads the real rotation update: continuation, depth 1, the new head', () => {
    expect(readProvenance(rotationMeta())).toEqual({
      acpSessionId: ROOT,
      currentHermesSessionId: CONT,
      rootHermesSessionId: ROOT,
      parentHermesSessionId: ROOT,
      sessionKind: 'continuation',
      compressionDepth: 1,
      previousHermesSessionId: ROOT,
      reason: 'compression',
    });
  });

  it('an unknown shape is no provenance, never a guess', () => {
    const p = rotationMeta().hermes.sessionProvenance;
    expect(readProvenance(undefined)).toBeUndefined();
    expect(readProvenance({ hermes: {} })).toBeUndefined();
    expect(readProvenance({ hermes: { sessionProvenance: { ...p, sessionKind: 'branch' } } })).toBeUndefined();
    expect(readProvenance({ hermes: { sessionProvenance: { ...p, compressionDepth: '1' } } })).toBeUndefined();
    expect(readProvenance({ hermes: { sessionProvenance: { ...p, currentHermesSessionId: 7 } } })).toBeUndefined();
    expect(
      readProvenance({ hermes: { sessionProvenance: { ...p, parentHermesSessionId: undefined } } }),
    ).toBeUndefined();
  });

  it('reopens the head the conversation moved to, and only for its own lineage', () => {
    expect(reopenTarget(ROOT, rotationMeta())).toBe(CONT);
    expect(reopenTarget(ROOT, undefined)).toBe(ROOT);
    expect(reopenTarget('other-session', rotationMeta())).toBe('other-session');
    // A root's own provenance (session/new, a title update) keeps the stored id.
    const root = {
      hermes: {
        sessionProvenance: {
          ...rotationMeta().hermes.sessionProvenance,
          currentHermesSessionId: ROOT,
          parentHermesSessionId: null,
          sessionKind: 'root',
          compressionDepth: 0,
        },
      },
    };
    expect(reopenTarget(ROOT, root)).toBe(ROOT);
  });
});
