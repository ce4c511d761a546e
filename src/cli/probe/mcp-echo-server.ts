/**
 * The probe's MCP server: a stdio MCP server built on the MCP TypeScript SDK with one tool,
 * `probe_echo`, whose output carries a nonce so the probe can tell that a tool call really
 * reached this process. Every message's method is appended to the log file given as `--log`
 * (the probe reads it: started, tools listed, tool called).
 * An executable: frames go to stdout; it never writes anything else there.
 *   node mcp-echo-server.js --log FILE --nonce NONCE
 */
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const logFile = arg('log');
const nonce = arg('nonce') ?? 'no-nonce';
const TOOL = 'probe_echo';

function log(event: Record<string, unknown>): void {
  if (!logFile) return;
  try {
    appendFileSync(logFile, `${JSON.stringify({ at: Date.now(), ...event })}\n`);
  } catch {
    // A log we cannot write must not break the server.
  }
}

const server = new McpServer({ name: 'talaria-probe', version: '1.0.0' });
server.registerTool(
  TOOL,
  {
    description: 'Echoes its text argument back, tagged by the Talaria probe.',
    inputSchema: { text: z.string().optional().describe('Text to echo') },
  },
  ({ text }) => {
    return { content: [{ type: 'text', text: `talaria-probe echo ${nonce}: ${text ?? ''}` }] };
  },
);

const transport = new StdioServerTransport();
log({ method: '(started)' });
await server.connect(transport);
// Every message the agent sends, before the SDK handles it (a call the SDK refuses is still seen).
const handle = transport.onmessage;
transport.onmessage = (msg) => {
  const m = msg as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (typeof m.method === 'string')
    log({
      method: m.method,
      ...(m.method === 'tools/call' ? { name: m.params?.name, arguments: m.params?.arguments } : {}),
    });
  handle?.(msg);
};
process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
