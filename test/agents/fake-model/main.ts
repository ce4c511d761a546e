/**
 * Runs the fake model server on its own, for driving real agents by hand:
 *   node --import tsx test/agents/fake-model/main.ts [--port N]
 * Prints one JSON line `{"url","port"}` on stdout, logs each request on stderr, stops on SIGINT/SIGTERM.
 */
import { startFakeModel } from './index.js';

const i = process.argv.indexOf('--port');
const port = i >= 0 ? Number(process.argv[i + 1]) : 0;
const line =
  (level: string) =>
  (msg: string, data?: Record<string, unknown>): void => {
    process.stderr.write(`${level} ${msg} ${data ? JSON.stringify(data) : ''}\n`);
  };
const server = await startFakeModel({
  port,
  log: { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') },
});
process.stdout.write(JSON.stringify({ url: server.url, port: server.port }) + '\n');
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
