/** pi through pi-acp (which runs `pi --mode rpc`), on a Chat Completions provider from models.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

const ENTRY = 'node_modules/pi-acp/dist/index.js';

export const pi: AgentProfile = {
  name: 'pi',
  version: '0.0.24',
  packages: ['pi-acp@0.0.24', '@mariozechner/pi-coding-agent@0.73.1'],
  entry: ENTRY,
  launch: (ctx) => {
    const dir = join(ctx.home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    if (ctx.credentials) {
      writeFileSync(
        join(dir, 'models.json'),
        JSON.stringify({
          providers: {
            fake: {
              baseUrl: `${ctx.modelUrl}/v1`,
              api: 'openai-completions',
              apiKey: 'sk-fake-offline',
              compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
              models: [{ id: 'fake-model', name: 'Fake model', reasoning: false }],
            },
          },
        }),
      );
      writeFileSync(
        join(dir, 'settings.json'),
        JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model' }),
      );
    }
    return {
      command: process.execPath,
      args: [join(ctx.installDir, ENTRY)],
      env: { PI_CODING_AGENT_DIR: dir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    };
  },
  builtin: 'pi',
  // pi-acp never sends session/request_permission: pi runs every tool without asking.
  asksPermission: false,
  noCredentials: 'session_new',
  quirks: [
    'rawInput {} refined later (pending updates with partial paths)',
    'session_info_update with only _meta',
    'model error swallowed (end_turn, no text)',
    'authMethods in error.data',
  ],
};
