/** Gemini CLI in ACP mode, its "gateway" auth pointed at the fake model's Gemini API. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

const ENTRY = 'node_modules/@google/gemini-cli/package.json';

export const geminiCli: AgentProfile = {
  name: 'gemini-cli',
  version: '0.61.0',
  packages: ['@google/gemini-cli@0.61.0'],
  entry: ENTRY,
  launch: (ctx) => {
    const dir = join(ctx.home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    return {
      command: join(ctx.installDir, 'node_modules/.bin/gemini'),
      args: ['--acp'],
      env: {
        GEMINI_CLI_NO_RELAUNCH: '1',
        GEMINI_TELEMETRY_ENABLED: 'false',
        ...(ctx.credentials ? { GOOGLE_GEMINI_BASE_URL: ctx.modelUrl, GEMINI_API_KEY: 'fake-gemini-key' } : {}),
      },
    };
  },
  builtin: 'gemini',
  noCredentials: 'session_new',
  quirks: [
    'permission for an unannounced tool call',
    'HTTP status as the JSON-RPC error code',
    '_meta.quota in prompt result',
    'write bug with fs.readTextFile',
  ],
};
