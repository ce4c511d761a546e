/**
 * Built-in descriptors for the ACP agents the offline matrix (test/agents/) proved beyond the
 * first ones: Qwen Code, GitHub Copilot CLI, Kilo Code, pi (through pi-acp) and Cursor (through
 * cursor-agent-acp). Their quirks live in quirks/<agent>.ts, chosen by the name each gives itself.
 * No static credential check: each has several login routes the matrix could not all verify.
 * Like the others (builtin.ts) they inherit only non-secret settings: keys come from config.json.
 */
import { defineProvider } from './define.js';
import { onPath } from './locate.js';
import type { Provider } from './types.js';

export const qwen: Provider = defineProvider({
  id: 'qwen',
  label: 'Qwen Code',
  install: 'Install Qwen Code: `npm install -g @qwen-code/qwen-code`, then run `qwen` once to sign in.',
  npm: { package: '@qwen-code/qwen-code', bin: 'qwen' },
  locate: onPath('qwen', ['--acp']),
  agentName: 'qwen-code',
  env: {
    inherit: ['OPENAI_BASE_URL', 'OPENAI_MODEL'],
    set: { QWEN_CODE_NO_RELAUNCH: '1' },
  },
});

export const copilot: Provider = defineProvider({
  id: 'copilot',
  label: 'GitHub Copilot CLI',
  install: 'Install GitHub Copilot CLI: `npm install -g @github/copilot`, then run `copilot` once and /login.',
  npm: { package: '@github/copilot', bin: 'copilot' },
  locate: onPath('copilot', ['--acp']),
  agentName: 'Copilot',
  env: {
    // Never GH_TOKEN / GITHUB_TOKEN of ours: they open every repository the user can reach.
    inherit: ['COPILOT_MODEL', 'COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_TYPE', 'COPILOT_PROVIDER_WIRE_API'],
  },
});

export const kilo: Provider = defineProvider({
  id: 'kilo',
  label: 'Kilo Code',
  install: 'Install Kilo Code CLI: `npm install -g @kilocode/cli`.',
  npm: { package: '@kilocode/cli', bin: 'kilo' },
  locate: onPath('kilo', ['acp']),
  agentName: 'Kilo',
  env: {
    // Not KILO_CONFIG_CONTENT: inline config may hold provider keys.
    inherit: ['KILO_CONFIG'],
    set: { KILO_DISABLE_AUTOUPDATE: '1' },
  },
  // Like opencode: without credentials the prompt hangs (only the stall watchdog catches it).
});

export const pi: Provider = defineProvider({
  id: 'pi',
  label: 'pi',
  install: 'Install pi and its ACP adapter: `npm install -g @mariozechner/pi-coding-agent pi-acp`.',
  locate: onPath('pi-acp', []),
  agentName: 'pi-acp',
  env: {
    inherit: ['PI_CODING_AGENT_DIR'],
  },
  check: { versionFromPackage: true, versionArgs: null },
});

export const cursor: Provider = defineProvider({
  id: 'cursor',
  label: 'Cursor',
  install:
    "Install the Cursor ACP adapter (`npm install -g @blowmage/cursor-agent-acp`) and Cursor's `cursor-agent` CLI, then run `cursor-agent login`.",
  locate: onPath('cursor-agent-acp', []),
  agentName: 'cursor-agent-acp',
  // Starting the adapter takes ~21 s: read the version from its package instead.
  check: { versionFromPackage: true, versionArgs: null },
});
