/**
 * The probe's MCP echo server, spoken to as an agent would: the MCP SDK's own client over a real
 * stdio pipe, plus raw lines for what a client library would not send.
 */
import { describe, it, expect, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpEchoCommand } from '../../../src/cli/probe/mcp-command.js';
import { tempDir } from '../helpers.js';

vi.setConfig({ testTimeout: 30_000 });

const logged = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method: string; name?: string });

describe('the probe MCP echo server', () => {
  it('initializes, lists probe_echo, echoes with the nonce, and logs each method', async () => {
    const log = join(tempDir('mcp'), 'mcp.log');
    const { command, args } = mcpEchoCommand();
    const transport = new StdioClientTransport({
      command,
      args: [...args, '--log', log, '--nonce', 'N0NCE'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'talaria-probe' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['probe_echo']);
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
      const r = await client.callTool({ name: 'probe_echo', arguments: { text: 'hi' } });
      expect(r.content).toEqual([{ type: 'text', text: 'talaria-probe echo N0NCE: hi' }]);
      // A call with arguments that do not fit the schema is an error result, not an empty echo.
      const bad = await client.callTool({ name: 'probe_echo', arguments: { text: 5 } });
      expect(bad.isError).toBe(true);
      const unknown = await client.callTool({ name: 'nope', arguments: {} });
      expect(unknown.isError).toBe(true);
    } finally {
      await client.close();
    }
    const methods = logged(log).map((e) => e.method);
    expect(methods).toEqual(
      expect.arrayContaining(['(started)', 'initialize', 'notifications/initialized', 'tools/list', 'tools/call']),
    );
    expect(logged(log).find((e) => e.method === 'tools/call')).toMatchObject({ name: 'probe_echo' });
  });

  it('negotiates the protocol version instead of echoing whatever the client asks for', async () => {
    const { command, args } = mcpEchoCommand();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout! });
    const first = new Promise<string>((resolve) => lines.once('line', resolve));
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })}\n`,
    );
    const res = JSON.parse(await first) as { result: { protocolVersion: string } };
    child.stdin!.end();
    expect(res.result.protocolVersion).not.toBe('1999-01-01');
    expect(res.result.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
  });
});
