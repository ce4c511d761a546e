/** Qwen Code (`qwen --acp`). */
import type { PermissionMode } from '../../permission/types.js';
import type { QuirkSet } from './types.js';

/**
 * qwen starts sessions in `auto`, where its own LLM classifier approves "safe" edits without
 * asking. In `default` it asks before every edit and command, so Talaria's policy decides (for
 * every Talaria mode: accept-edits and auto are applied by that policy, not by qwen).
 */
export const QWEN_ASKING_MODE = 'default';

export function qwenModeFor(_mode: PermissionMode): string {
  return QWEN_ASKING_MODE;
}

export const qwenQuirks: QuirkSet = {
  id: 'qwen-code',
  label: 'Qwen Code',
  names: /^qwen-code$/i,
  hintName: 'qwen-code',
  commandHints: [/^qwen$/, /[\\/]@qwen-code[\\/]qwen-code[\\/]/],
  modeFor: qwenModeFor,
};
