/** Claude Code through Zed's older adapter: its tools run through the CLIENT's terminal/* and fs/*. */
import { join } from 'node:path';
import { CLAUDE_ENV_OFF } from './claude-agent-acp.js';
import type { AgentProfile } from './types.js';

const ENTRY = 'node_modules/@zed-industries/claude-code-acp/dist/index.js';

export const claudeCodeAcp: AgentProfile = {
  name: 'claude-code-acp',
  version: '0.16.2',
  packages: ['@zed-industries/claude-code-acp@0.16.2'],
  entry: ENTRY,
  launch: (ctx) => ({
    command: process.execPath,
    args: [join(ctx.installDir, ENTRY)],
    env: {
      ...CLAUDE_ENV_OFF,
      ANTHROPIC_BASE_URL: ctx.modelUrl,
      ...(ctx.credentials ? { ANTHROPIC_API_KEY: 'sk-ant-fake-offline' } : {}),
    },
  }),
  // The built-in finds the older adapter's command when the current one is not installed.
  builtin: 'claude-code',
  noCredentials: 'prompt',
  quirks: [
    'duplicate tool_call',
    'empty opening chunks',
    'rawInput {} refined later',
    'client terminal/* and fs/*',
    'usage in prompt result',
  ],
};

const FORK_ENTRY = 'node_modules/@sudocode-ai/claude-code-acp/dist/index.js';

/**
 * A fork of the older adapter under another scope (issue 35 item 13): it names itself
 * `@sudocode-ai/claude-code-acp`, and must get the same fixes by what it says, not by its scope.
 */
export const claudeCodeAcpFork: AgentProfile = {
  ...claudeCodeAcp,
  name: 'claude-code-acp-fork',
  version: '0.13.10',
  packages: ['@sudocode-ai/claude-code-acp@0.13.10'],
  entry: FORK_ENTRY,
  launch: async (ctx) => ({ ...(await claudeCodeAcp.launch(ctx)), args: [join(ctx.installDir, FORK_ENTRY)] }),
};
