/**
 * Vitest setup (vitest.config.ts setupFiles): a test that leaks an unhandled rejection or an
 * uncaught exception fails, naming what leaked — in an embedding program either would stop Node.
 * Leaks noticed after a file's last test fail that file.
 */
import { afterAll, afterEach } from 'vitest';
import { runAfterFile } from './file-end.js';

const leaked: string[] = [];
const describe = (kind: string, e: unknown) =>
  `${kind}: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e)}`;
const onRejection = (reason: unknown) => void leaked.push(describe('unhandled rejection', reason));
const onException = (err: unknown) => void leaked.push(describe('uncaught exception', err));
process.on('unhandledRejection', onRejection);
process.on('uncaughtException', onException);

function check(): void {
  const found = leaked.splice(0);
  if (found.length > 0) throw new Error(`leaked ${found.length} unhandled error(s):\n${found.join('\n')}`);
}

// Rejections are reported after the microtasks of the turn that dropped them: give them one turn.
afterEach(async () => {
  await new Promise((r) => setImmediate(r));
  check();
});

afterAll(async () => {
  await new Promise((r) => setImmediate(r));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  check();
});

// Registered last, so it runs first (hooks run in reverse): helpers' cleanup after the file's own
// afterAll hooks, and before the leak check above sees what that cleanup left.
afterAll(runAfterFile);
