/** Qwen Code in ACP mode on the Chat Completions API. */
import { join } from 'node:path';
import type { AgentProfile } from './types.js';
import { QWEN_ASKING_MODE } from '../../../src/providers/quirks/qwen.js';

export const qwenCode: AgentProfile = {
  name: 'qwen-code',
  version: '0.24.4',
  packages: ['@qwen-code/qwen-code@0.24.4'],
  entry: 'node_modules/.bin/qwen',
  launch: (ctx) => ({
    command: join(ctx.installDir, 'node_modules/.bin/qwen'),
    args: ctx.credentials
      ? ['--acp', '--auth-type', 'openai', '--openai-base-url', `${ctx.modelUrl}/v1`, '--openai-api-key', 'sk-fake-offline', '--model', 'fake-model']
      : ['--acp'],
    env: { QWEN_CODE_NO_RELAUNCH: '1', QWEN_TELEMETRY_ENABLED: 'false' },
  }),
  // qwen starts sessions in `auto` (its own LLM classifier approves "safe" edits): Talaria's policy needs `default`.
  initialMode: QWEN_ASKING_MODE,
  noCredentials: 'session_new',
  quirks: ['craft/drainMidTurnQueue request (answered -32601)', 'two allow_once options', 'empty opening chunks', 'reads and writes through the client', 'authMethods in error.data'],
};
