/** Commands not in this build yet (the server faces): a clear message and their own exit code. */
import { EXIT } from '../exit-codes.js';
import { STUB_HELP } from '../help.js';
import type { CliContext } from './common.js';

export const STUB_COMMANDS = ['serve', 'acp'] as const;

export function stubCommand(name: string, argv: string[], ctx: CliContext): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    ctx.io.stdout.write(`${STUB_HELP(name)}\n`);
    return EXIT.OK;
  }
  ctx.io.stderr.write(`talaria ${name}: not yet available in this build\n`);
  return EXIT.UNAVAILABLE;
}
