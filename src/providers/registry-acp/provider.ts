/**
 * An installed registry agent as a provider, like a built-in: found at its install folder (or
 * `uvx` on PATH), readiness from the same checks, quirks chosen by what it says in initialize.
 */
import { defineProvider } from '../define.js';
import { which } from '../locate.js';
import type { Provider } from '../types.js';
import type { InstalledAgent } from './installed.js';

export const UV_INSTALL_FIX =
  'Install uv (https://docs.astral.sh/uv/getting-started/installation/): curl -LsSf https://astral.sh/uv/install.sh | sh — then check again.';

export function installedProvider(a: InstalledAgent): Provider {
  const uvx = a.kind === 'uvx';
  return defineProvider({
    id: a.id,
    label: a.name,
    source: 'registry',
    install: uvx
      ? `${a.name} runs with uvx (${a.source}). ${UV_INSTALL_FIX}`
      : `Install it again: talaria agents add ${a.id}@${a.version}`,
    locate: async (ctx) => {
      const found = which(a.command, ctx);
      return found
        ? { command: found, args: [...a.args], via: uvx ? `uvx ${a.source}` : `registry ${a.version}` }
        : undefined;
    },
    env: { set: { ...a.env } },
    // Registry agents are not asked for --version (not every one has it); the manifest knows it.
    check: { versionArgs: null },
  });
}
