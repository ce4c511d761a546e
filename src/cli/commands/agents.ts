/** `talaria agents`: every agent Talaria knows, as a table (or --json). */
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { AGENTS_HELP } from '../help-admin.js';
import { colorEnabled } from '../io.js';
import { quirkCell, statusMark, statusWord } from '../render/readiness.js';
import { createStyle } from '../render/style.js';
import { agentsRegistryCommand, REGISTRY_SUBCOMMANDS } from './agents-registry.js';
import type { CliContext } from './common.js';
import { timeoutOption } from './doctor.js';

const OPTIONS = { profile: { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' } } as const;

export async function agentsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const sub = argv[0];
  if (sub !== undefined && (REGISTRY_SUBCOMMANDS as readonly string[]).includes(sub))
    return agentsRegistryCommand(sub, argv.slice(1), ctx);
  if (argv.includes('--installed'))
    return agentsRegistryCommand(
      'installed',
      argv.filter((a) => a !== '--installed'),
      ctx,
    );
  const p = parse('agents', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${AGENTS_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0) throw new UsageError(`agents: unexpected argument '${p.positionals[0]}'`);
  const timeoutMs = timeoutOption('agents', str(p, 'timeout'));
  const profile = str(p, 'profile');
  const h = ctx.harness();
  try {
    const agents = await h.agents({ ...(profile ? { profile } : {}), timeoutMs });
    if (flag(p, 'json')) {
      io.stdout.write(JSON.stringify({ v: 1, agents }, null, 2) + '\n');
      return EXIT.OK;
    }
    const style = createStyle(colorEnabled(io.stdout, io.env));
    const rows = agents.map((r) => [
      r.providerId,
      r.label,
      statusWord(r),
      r.version ?? '',
      r.source,
      quirkCell(r.quirks),
      r.command ? r.command.command : '',
    ]);
    const head = ['AGENT', 'NAME', 'STATUS', 'VERSION', 'SOURCE', 'QUIRKS', 'COMMAND'];
    const widths = head.map((hd, i) => Math.max(hd.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    io.stdout.write(`  ${style.bold(line(head))}\n`);
    agents.forEach((r, i) => io.stdout.write(`${statusMark(r, style)} ${line(rows[i]!)}\n`));
    const ready = agents.filter((r) => r.ready).length;
    io.stdout.write(
      style.dim(
        `${ready} of ${agents.length} ready · talaria doctor shows what to fix and why each quirk set applies\n`,
      ),
    );
    return EXIT.OK;
  } finally {
    await h.close();
  }
}
