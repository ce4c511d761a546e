/** opencode (native binary), Chat Completions through its bundled openai-compatible provider. */
import { join } from 'node:path';
import { openCodeConfig } from './opencode-config.js';
import type { AgentProfile } from './types.js';

export const opencode: AgentProfile = {
  name: 'opencode',
  version: '1.18.33',
  packages: ['opencode-ai@1.18.33'],
  entry: 'node_modules/.bin/opencode',
  launch: (ctx) => ({
    command: join(ctx.installDir, 'node_modules/.bin/opencode'),
    args: ['acp'],
    env: {
      OPENCODE_CONFIG_CONTENT: openCodeConfig(ctx.modelUrl, ctx.credentials),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    },
  }),
  builtin: 'opencode',
  noCredentials: 'hang',
  quirks: [
    'configOptions-only session',
    'writes through fs/write_text_file',
    'killed tool reported completed after cancel',
    'usage in prompt result',
    'silent hang without credentials',
  ],
};
