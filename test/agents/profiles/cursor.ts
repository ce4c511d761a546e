/** The Cursor ACP adapter only: its `cursor-agent` backend is not on npm, so only error paths run. */
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

export const cursor: AgentProfile = {
  name: 'cursor',
  version: '0.7.1',
  packages: ['@blowmage/cursor-agent-acp@0.7.1'],
  entry: 'node_modules/.bin/cursor-agent-acp',
  launch: (ctx) => ({ command: join(ctx.installDir, 'node_modules/.bin/cursor-agent-acp'), args: [], env: {} }),
  builtin: 'cursor',
  errorPathsOnly: true,
  initTimeoutMs: 90_000,
  noCredentials: 'prompt',
  quirks: ['initialize takes ~21 s', 'not-authenticated as answer text with end_turn'],
};
