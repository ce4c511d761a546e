/** `talaria models` and `talaria mode`: list or switch on a fresh (or --session) session. */
import { TalariaError } from '../../protocol/errors.js';
import { parse, str, flag, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { catalogHelp } from '../help.js';
import { colorEnabled, createProgress, stderrLogger } from '../io.js';
import { selectorLines } from '../render/catalog-list.js';
import { createStyle } from '../render/style.js';
import { AGENT_OPTIONS, agentArgs, setupFailure, type CliContext, openBase } from './common.js';

const OPTIONS = {
  ...AGENT_OPTIONS,
  set: { type: 'string' },
  json: { type: 'boolean' },
  session: { type: 'string' },
} as const;

export async function catalogCommand(name: 'models' | 'mode', argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const kind = name === 'models' ? 'model' : 'mode';
  const p = parse(name, argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${catalogHelp(name)}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0)
    throw new UsageError(`${name}: unexpected argument '${p.positionals[0]}' (use --set ID)`);
  const a = agentArgs(name, p);
  const target = str(p, 'set');
  const sessionArg = str(p, 'session');
  const style = createStyle(colorEnabled(io.stdout, io.env));
  const errStyle = createStyle(colorEnabled(io.stderr, io.env));
  const runtime = ctx.runtime();
  const abort = new AbortController();
  const off = ctx.onInterrupt(() => abort.abort());
  const progress = createProgress(io.stderr, { tty: io.stderr.isTTY === true, quiet: io.stderr.isTTY !== true });
  try {
    let opened;
    try {
      opened = await runtime.open({
        ...openBase(a, sessionArg, abort.signal, progress),
        client: { setupTimeoutMs: a.setupTimeoutMs, logger: stderrLogger(io.stderr, a.verbose) },
      });
    } catch (err) {
      const f = setupFailure(err);
      progress.done();
      io.stderr.write(`talaria ${name}: ${f.message}\n`);
      return f.exitCode;
    }
    progress.done();
    if (opened.banner) io.stderr.write(`${errStyle.yellow(opened.banner)}\n`);
    const { session } = opened;
    if (target !== undefined) {
      try {
        await (kind === 'model' ? opened.setModel(target) : opened.setMode(target));
      } catch (err) {
        const bad = err instanceof TalariaError && (err.code === 'invalid_argument' || err.code === 'unsupported');
        io.stderr.write(`talaria ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
        if (bad) for (const l of selectorLines(session.catalog[kind], kind, errStyle)) io.stderr.write(`${l}\n`);
        return bad ? EXIT.USAGE : EXIT.AGENT_ERROR;
      }
    }
    const sel = session.catalog[kind];
    const chosen = sel?.currentId ?? target;
    // Without --session the session is a throwaway: the choice becomes the workspace's default
    // for this agent, which its next sessions start with.
    const asDefault = target !== undefined && sessionArg === undefined;
    if (asDefault) opened.setDefault(kind, chosen!);
    const Kind = kind === 'model' ? 'Model' : 'Mode';
    if (flag(p, 'json')) {
      io.stdout.write(
        JSON.stringify({
          v: 1,
          ...(asDefault
            ? { default: true, workspace: a.cwd }
            : { sessionId: opened.talariaId, agentSessionId: session.id }),
          kind,
          currentId: sel?.currentId ?? null,
          options: sel?.options ?? [],
        }) + '\n',
      );
    } else if (asDefault) {
      io.stdout.write(`${Kind} ${chosen} is now the default for new ${opened.label} sessions in ${a.cwd}\n`);
      io.stderr.write(errStyle.dim(`(a stored session keeps its own: talaria ${name} --session ID --set ${chosen})\n`));
    } else if (target !== undefined) {
      io.stdout.write(`${Kind} set to ${chosen} (session ${opened.talariaId}; kept when it is reopened)\n`);
    } else {
      for (const l of selectorLines(sel, kind, style)) io.stdout.write(`${l}\n`);
    }
    return EXIT.OK;
  } finally {
    off();
    await runtime.close();
  }
}
