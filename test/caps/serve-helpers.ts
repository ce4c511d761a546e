/** The caps face mounted on a running test server, as `talaria serve --caps` does it. */
import '../../src/caps/lockdown.js';
import { CapsHost, capsUpgradeHandler } from '../../src/caps/index.js';
import type { Served } from '../server/helpers.js';

export interface ServedCaps {
  host: CapsHost;
  url: string;
  ref: (id: string, facet: 'reader' | 'controller') => string;
  close: () => Promise<void>;
}

export function withCaps(s: Served): ServedCaps {
  const host = new CapsHost({ harness: s.harness, cursor: s.server.events });
  const up = capsUpgradeHandler(host);
  s.server.mount('/captp', (req, socket, head) => up.handleUpgrade(req, socket, head));
  return {
    host,
    url: `${s.server.origin.replace(/^http/, 'ws')}/captp`,
    ref: (id, facet) => host.refs.mint({ facet, target: id }).uri,
    close: async () => (up.wss.close(), await host.close()),
  };
}
