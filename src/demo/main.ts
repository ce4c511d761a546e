/**
 * Executable entry of the demo agent: ACP over stdin/stdout, logs to stderr only with
 * TALARIA_DEMO_DEBUG=1. Exits 0 when stdin closes (after killing any command it started).
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { createDemoAgent, demoOptionsFromEnv } from './agent.js';

const debug = process.env.TALARIA_DEMO_DEBUG === '1';
const log = debug ? (line: string): void => void process.stderr.write(`[talaria-demo] ${line}\n`) : undefined;

const stream = acp.ndJsonStream(
  Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const agent = createDemoAgent({ ...demoOptionsFromEnv(process.env), ...(log ? { log } : {}), stream });

// A vanished client (EPIPE) or a polite signal ends the connection the same way stdin EOF does.
process.stdout.on('error', () => agent.close());
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => agent.close());

await agent.closed;
log?.('connection closed, exiting');
process.exit(0);
