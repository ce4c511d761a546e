/**
 * `talaria hermes <topic> …`: what Hermes keeps outside ACP (its profiles, its sessions from other
 * channels). Each topic lives in its own file and is loaded on demand.
 */
import { UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { HERMES_HELP } from '../help-admin.js';
import type { CliContext } from './common.js';

export async function hermesCommand(argv: string[], ctx: CliContext): Promise<number> {
  const [topic] = argv;
  // Topics add a case here and take argv.slice(1).
  switch (topic) {
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      ctx.io.stdout.write(`${HERMES_HELP}\n`);
      return EXIT.OK;
    case 'profiles':
      return (await import('./hermes-profiles.js')).hermesProfilesCommand(argv.slice(1), ctx);
    case 'skills':
      return (await import('./hermes-skills.js')).hermesSkillsCommand(argv.slice(1), ctx);
    case 'sessions':
      return (await import('./hermes-sessions.js')).hermesSessionsCommand(argv.slice(1), ctx);
    default:
      throw new UsageError(`hermes: unknown topic '${topic}' (try: talaria hermes --help)`);
  }
}
