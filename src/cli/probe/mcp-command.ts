/**
 * How an agent starts the probe's MCP echo server: with this Node, as the package runs its own
 * scripts (os/node-script.ts; the agent's cwd has no node_modules).
 */
import { nodeScriptCommand } from '../../os/node-script.js';
import { MCP_SERVER_NAME } from './types.js';

export function mcpEchoCommand(): { command: string; args: string[] } {
  return nodeScriptCommand(import.meta.url, 'mcp-echo-server');
}

/** The ACP `mcpServers` entry (stdio: no `type`), logging to `logFile`, tagging output with `nonce`. */
export function mcpServerEntry(logFile: string, nonce: string): Record<string, unknown> {
  const { command, args } = mcpEchoCommand();
  return { name: MCP_SERVER_NAME, command, args: [...args, '--log', logFile, '--nonce', nonce], env: [] };
}
