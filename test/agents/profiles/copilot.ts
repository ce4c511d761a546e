/** GitHub Copilot CLI (native) with a bring-your-own OpenAI-compatible provider: no GitHub login. */
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

export const copilot: AgentProfile = {
  name: 'copilot',
  version: '1.0.102',
  packages: ['@github/copilot@1.0.102'],
  entry: 'node_modules/.bin/copilot',
  launch: (ctx) => ({
    command: join(ctx.installDir, 'node_modules/.bin/copilot'),
    args: ['--acp'],
    env: ctx.credentials
      ? ({
          COPILOT_PROVIDER_BASE_URL: `${ctx.modelUrl}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_WIRE_API: 'completions',
          COPILOT_PROVIDER_API_KEY: 'sk-fake-offline',
          COPILOT_MODEL: 'fake-model',
        } as Record<string, string>)
      : {},
  }),
  builtin: 'copilot',
  noCredentials: 'session_new',
  quirks: [
    'session/update before the session/new response',
    'model error as text + end_turn',
    '_meta.terminal-auth auth method',
    'usage in prompt result',
  ],
};
