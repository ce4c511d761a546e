/** Codex through Zed's adapter (a native binary from the platform package), Responses API. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

const BIN = 'node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp';

export const codexAcp: AgentProfile = {
  name: 'codex-acp',
  version: '0.16.0',
  packages: ['@zed-industries/codex-acp@0.16.0', '@zed-industries/codex-acp-linux-x64@0.16.0'],
  entry: BIN,
  launch: (ctx) => {
    const codexHome = join(ctx.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    // Keyless: no provider pointing at the fake model, no key; codex then asks for a login.
    const provider = ctx.credentials
      ? [
          'model_provider = "fake"',
          '[model_providers.fake]',
          'name = "fake"',
          `base_url = "${ctx.modelUrl}/v1"`,
          'wire_api = "responses"', // chat is rejected by this codex
          'env_key = "FAKE_MODEL_API_KEY"',
        ]
      : [];
    const top = [
      'model = "gpt-5.4"', // must be a slug codex knows
      'approval_policy = "untrusted"', // so it asks before running commands
      'sandbox_mode = "danger-full-access"', // the workspace sandbox needs bubblewrap
      'check_for_update_on_startup = false',
    ];
    const rest = ['[features]', 'unified_exec = false', '[analytics]', 'enabled = false'];
    // Top-level keys must come before any table.
    const lines = [...top, ...(provider.length ? [provider[0]!] : []), ...provider.slice(1), ...rest];
    writeFileSync(join(codexHome, 'config.toml'), lines.join('\n') + '\n');
    return {
      command: join(ctx.installDir, BIN),
      args: [],
      env: { CODEX_HOME: codexHome, ...(ctx.credentials ? { FAKE_MODEL_API_KEY: 'sk-fake-offline' } : {}) },
    };
  },
  builtin: 'codex',
  noCredentials: 'session_new',
  quirks: [
    'UUID request ids',
    'configOptions-only session',
    'permission pending for an in_progress call',
    'killed tool reported failed after cancel',
  ],
};
