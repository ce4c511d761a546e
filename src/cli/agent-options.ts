/** The agent options every agent command takes (parsed by commands/common.ts); here so light entry points can parse them too. */
import type { OptionSpec } from './args.js';

export const AGENT_OPTIONS: OptionSpec = {
  agent: { type: 'string' },
  'agent-cmd': { type: 'string' },
  'agent-url': { type: 'string' },
  profile: { type: 'string' },
  cwd: { type: 'string' },
  'setup-timeout': { type: 'string' },
  verbose: { type: 'boolean' },
};
