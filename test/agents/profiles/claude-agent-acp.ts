/** Claude Code through Zed's current adapter (bundles Claude Code as JS). */
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

export const CLAUDE_ENV_OFF = {
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
};

export const claudeAgentAcp: AgentProfile = {
  name: 'claude-agent-acp',
  version: '0.23.1',
  packages: ['@zed-industries/claude-agent-acp@0.23.1'],
  entry: 'node_modules/@zed-industries/claude-agent-acp/dist/index.js',
  launch: (ctx) => ({
    command: process.execPath,
    args: [join(ctx.installDir, 'node_modules/@zed-industries/claude-agent-acp/dist/index.js')],
    env: {
      ...CLAUDE_ENV_OFF,
      ANTHROPIC_BASE_URL: ctx.modelUrl,
      ...(ctx.credentials ? { ANTHROPIC_API_KEY: 'sk-ant-fake-offline' } : {}),
    },
  }),
  builtin: 'claude-code',
  noCredentials: 'prompt',
  continueFromHermes: true,
  quirks: [
    'empty opening chunks',
    'rawInput {} refined later',
    '_meta-only tool_call_update',
    'usage in prompt result',
    'cancel leaves the tool unsettled',
  ],
};

/**
 * The adapter's current line (moved to @agentclientprotocol, 0.101.0): it advertises
 * `_session/steering` in initialize. Opt-in by name (not one of the ten): the steer cell.
 */
export const claudeAgentAcpNext: AgentProfile = {
  ...claudeAgentAcp,
  name: 'claude-agent-acp-next',
  version: '0.101.0',
  packages: ['@agentclientprotocol/claude-agent-acp@0.101.0'],
  entry: 'node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js',
  launch: async (ctx) => ({
    ...(await claudeAgentAcp.launch(ctx)),
    command: process.execPath,
    args: [join(ctx.installDir, 'node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js')],
  }),
  steers: true,
};
