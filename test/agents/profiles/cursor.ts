/** The Cursor ACP adapter only: its `cursor-agent` backend is not on npm, so only error paths run. */
import { join } from 'node:path';
import type { AgentProfile } from './types.js';
import { agentError } from '../../../src/session/session.js';

export const cursor: AgentProfile = {
  name: 'cursor',
  version: '0.7.1',
  packages: ['@blowmage/cursor-agent-acp@0.7.1'],
  entry: 'node_modules/.bin/cursor-agent-acp',
  launch: (ctx) => ({ command: join(ctx.installDir, 'node_modules/.bin/cursor-agent-acp'), args: [], env: {} }),
  hooks: {
    // The adapter answers a prompt `end_turn` with the text "cursor-agent CLI is not authenticated".
    classifyTurn(t) {
      if (t.cancelled || !/not authenticated|not installed|cursor-agent\b.*(?:not found|missing)/i.test(t.text)) return undefined;
      // It lists no auth method in initialize; its text names the command ("run: `cursor-agent login`").
      const cmd = /run:?\s*`([^`]+)`/i.exec(t.text)?.[1];
      const authMethods = cmd ? [{ id: cmd.replace(/\s+/g, '-'), name: cmd, type: 'terminal', _meta: { source: 'text', command: cmd } }] : [];
      return { code: 'auth_required', message: t.text.trim().slice(0, 500), data: { source: 'text', authMethods } };
    },
  },
  errorPathsOnly: true,
  initTimeoutMs: 90_000,
  noCredentials: 'prompt',
  quirks: ['initialize takes ~21 s', 'not-authenticated as answer text with end_turn'],
};
