/**
 * How an agent starts the probe's MCP echo server: with this Node, from the compiled package
 * (mcp-echo-server.js) or from source through tsx (resolved from here, since the agent's cwd
 * has no node_modules).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MCP_SERVER_NAME } from './types.js';

export function mcpEchoCommand(): { command: string; args: string[] } {
  const js = fileURLToPath(new URL('./mcp-echo-server.js', import.meta.url));
  if (import.meta.url.endsWith('.js') && existsSync(js)) return { command: process.execPath, args: [js] };
  const ts = fileURLToPath(new URL('./mcp-echo-server.ts', import.meta.url));
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), ts] };
}

/** The ACP `mcpServers` entry (stdio: no `type`), logging to `logFile`, tagging output with `nonce`. */
export function mcpServerEntry(logFile: string, nonce: string): Record<string, unknown> {
  const { command, args } = mcpEchoCommand();
  return { name: MCP_SERVER_NAME, command, args: [...args, '--log', logFile, '--nonce', nonce], env: [] };
}
