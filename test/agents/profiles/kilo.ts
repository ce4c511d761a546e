/** Kilo Code CLI (an opencode fork, native binary). 7.8.1 does not install; 7.7.7 does. */
import { join } from 'node:path';
import { openCodeConfig } from './opencode-config.js';
import type { AgentProfile } from './types.js';

export const kilo: AgentProfile = {
  name: 'kilo',
  version: '7.7.7',
  packages: ['@kilocode/cli@7.7.7'],
  entry: 'node_modules/.bin/kilo',
  launch: (ctx) => ({
    command: join(ctx.installDir, 'node_modules/.bin/kilo'),
    args: ['acp'],
    env: {
      KILO_CONFIG_CONTENT: openCodeConfig(ctx.modelUrl, ctx.credentials),
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_MODELS_FETCH: '1',
      KILO_DISABLE_SHARE: '1',
      KILO_DISABLE_LSP_DOWNLOAD: '1',
      KILO_DISABLE_DEFAULT_PLUGINS: '1',
      KILO_TELEMETRY_DISABLED: '1',
    },
  }),
  builtin: 'kilo',
  noCredentials: 'hang',
  quirks: [
    'permission before its tool_call',
    'configOptions-only session',
    'writes through fs/write_text_file',
    'killed tool reported completed after cancel',
    'silent hang without credentials',
  ],
};
