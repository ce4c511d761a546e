/**
 * A join token for a test's hosts (docs/fleet.md §5): every host but a fleet's first joins with
 * one. Minted straight into the fleet's store, as `talaria fleet token` does.
 */
import { mintJoinToken } from '../../src/fleet/join.js';
import { openStore } from '../../src/store/index.js';

export function joinToken(url: string): string {
  const store = openStore({ url });
  try {
    return mintJoinToken(store, { ttlMs: 3_600_000 }).token;
  } finally {
    store.close();
  }
}
