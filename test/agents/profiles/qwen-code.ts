/** Qwen Code in ACP mode on the Chat Completions API. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProfile } from './types.js';

export const qwenCode: AgentProfile = {
  name: 'qwen-code',
  version: '0.24.4',
  packages: ['@qwen-code/qwen-code@0.24.4'],
  entry: 'node_modules/.bin/qwen',
  launch: (ctx) => {
    const env: Record<string, string> = { QWEN_CODE_NO_RELAUNCH: '1', QWEN_TELEMETRY_ENABLED: 'false' };
    if (ctx.by === 'id' && ctx.credentials) {
      // `qwen --acp` as the built-in starts it: the OpenAI-compatible endpoint from its settings and env.
      const dir = join(ctx.home, '.qwen');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: 'fake-model' } }),
      );
      Object.assign(env, {
        OPENAI_API_KEY: 'sk-fake-offline',
        OPENAI_BASE_URL: `${ctx.modelUrl}/v1`,
        OPENAI_MODEL: 'fake-model',
      });
    }
    return {
      command: join(ctx.installDir, 'node_modules/.bin/qwen'),
      args: ctx.credentials
        ? [
            '--acp',
            '--auth-type',
            'openai',
            '--openai-base-url',
            `${ctx.modelUrl}/v1`,
            '--openai-api-key',
            'sk-fake-offline',
            '--model',
            'fake-model',
          ]
        : ['--acp'],
      env,
    };
  },
  builtin: 'qwen',
  noCredentials: 'session_new',
  quirks: [
    'craft/drainMidTurnQueue request (answered -32601)',
    'two allow_once options',
    'empty opening chunks',
    'reads and writes through the client',
    'authMethods in error.data',
    'starts in its own auto-approve mode',
  ],
};
