/**
 * The Hermes provider: `hermes [-p PROFILE] acp --accept-hooks` (--accept-hooks only
 * auto-approves config.yaml shell hooks, which have no TTY under ACP). Every quirk of
 * specs/hermes-acp.md is in its quirk sets (quirks.ts), chosen by what it says in `initialize`.
 */
import { defineProvider } from '../define.js';
import type { Provider } from '../types.js';
import { findHermes } from './binary.js';
import { HERMES_INSTALL, hermesReadiness, profileArgs } from './readiness.js';

export { HERMES_MODES } from './quirks.js';

export const hermesProvider: Provider = defineProvider({
  id: 'hermes',
  label: 'Hermes Agent',
  install: HERMES_INSTALL,
  profiles: true,
  locate: async (ctx, o) => {
    const found = findHermes(ctx).found;
    return found
      ? { command: found.command, args: [...profileArgs(o?.profile), 'acp', '--accept-hooks'], via: found.via }
      : undefined;
  },
  readiness: hermesReadiness,
  // Hermes keeps its keys in $HERMES_HOME/.env; only where that home is needs passing on.
  env: { inherit: ['HERMES_HOME'] },
  agentName: 'hermes-agent',
});
