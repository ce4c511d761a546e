/**
 * The probe's MCP server: a tiny stdio MCP server (newline-delimited JSON-RPC 2.0, no SDK) with
 * one tool, `probe_echo`, whose output carries a nonce so the probe can tell that a tool call
 * really reached this process. Every request is appended to the log file given as `--log`.
 * An executable: frames go to stdout; it never writes anything else there.
 *   node mcp-echo-server.js --log FILE --nonce NONCE
 */
import { appendFileSync } from 'node:fs';

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

function send(msg: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
}

type Msg = { id?: string | number | null; method?: string; params?: Record<string, unknown> };

function handle(msg: Msg): void {
  const { id, method } = msg;
  if (typeof method !== 'string') return; // a response to nothing we asked: ignore
  log({ method });
  if (id === undefined) return; // notifications (initialized, cancelled): nothing to answer
  switch (method) {
    case 'initialize': {
      const requested = msg.params?.protocolVersion;
      return send({
        id,
        result: {
          protocolVersion: typeof requested === 'string' ? requested : '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'talaria-probe', version: '1.0.0' },
        },
      });
    }
    case 'ping':
      return send({ id, result: {} });
    case 'tools/list':
      return send({
        id,
        result: {
          tools: [
            {
              name: TOOL,
              description: 'Echoes its text argument back, tagged by the Talaria probe.',
              inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'Text to echo' } } },
            },
          ],
        },
      });
    case 'tools/call': {
      const name = msg.params?.name;
      const args = (msg.params?.arguments ?? {}) as { text?: unknown };
      log({ method, name, arguments: args });
      if (name !== TOOL) return send({ id, result: { isError: true, content: [{ type: 'text', text: `unknown tool ${String(name)}` }] } });
      const text = typeof args.text === 'string' ? args.text : '';
      return send({ id, result: { content: [{ type: 'text', text: `talaria-probe echo ${nonce}: ${text}` }] } });
    }
    case 'resources/list':
      return send({ id, result: { resources: [] } });
    case 'prompts/list':
      return send({ id, result: { prompts: [] } });
    default:
      return send({ id, error: { code: -32601, message: 'Method not found', data: { method } } });
  }
}

log({ method: '(started)' });
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buf += chunk;
  let nl: number;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (!line) continue;
    try {
      handle(JSON.parse(line) as Msg);
    } catch {
      send({ id: null, error: { code: -32700, message: 'Parse error' } });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
