/**
 * `talaria run`: one turn for scripts (human text, --json or --ndjson), exit code per outcome.
 * One road: the arguments and whether a server answers are decided in run-options.ts (also for
 * main.ts's warm path), the output and exit code in run-output.ts; the run's events come from a
 * running `talaria serve` (run-server.ts) or, here, from a session in this process.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { formatWireLine } from '../../protocol/wire-log.js';
import { UsageError } from '../args.js';
import { answerAsksForRun, permissionConfig } from '../approve.js';
import { EXIT } from '../exit-codes.js';
import { RUN_HELP } from '../help.js';
import { createProgress, stderrLogger } from '../io.js';
import type { OpenedAgent } from '../runtime.js';
import { interactiveRun, parseRun, serverFor } from './run-options.js';
import { readPrompt, setupFailure, storeCodeOf, type CliContext, openBase } from './common.js';
import { storeProblemLine } from '../store-problem.js';
import { RunOutput } from './run-output.js';
import { RunSignals } from './run-signals.js';

export async function runCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const startedAt = Date.now();
  const args = parseRun(argv);
  if (args === 'help') {
    io.stdout.write(`${RUN_HELP}\n`);
    return EXIT.OK;
  }
  const { a } = args;
  const prompt = args.prompt ?? (await readPrompt('run', ['-'], io));
  const out = new RunOutput(io, { json: args.json, ndjson: args.ndjson, verbose: a.verbose });

  // A running `talaria serve` on this home answers from its warm agent (issue 16); main.ts tries
  // that first (run-fast.ts) and says here whether it looked; this covers the rest (a prompt on
  // stdin). Flags the server cannot honour keep the run local, as does any failure before the turn.
  const found = ctx.serverSkipped !== undefined ? { skipped: ctx.serverSkipped } : serverFor(args, io.env);
  if (found && 'server' in found) {
    // Loaded only when used: the HTTP client stays off a local run's start-up.
    const { runOnServer } = await import('./run-server.js');
    const code = await runOnServer(found.server, args, prompt, out, ctx);
    if (code !== 'fallback') return code;
  } else if (found && found.skipped !== '' && a.verbose) out.note(`talaria run: ${found.skipped}; running locally`);

  let fd: number | undefined;
  if (args.wireLog !== undefined) {
    try {
      fd = openSync(args.wireLog, 'w');
    } catch (err) {
      throw new UsageError(`run: cannot write --wire-log ${args.wireLog}: ${(err as Error).message}`);
    }
  }

  // ---- setup ----
  const runtime = ctx.runtime();
  const setupAbort = new AbortController();
  // Progress is for people (a TTY) or --verbose; scripts get a quiet stderr.
  const progress = createProgress(io.stderr, {
    tty: io.stderr.isTTY === true,
    quiet: io.stderr.isTTY !== true && !a.verbose,
  });
  // A signal during the setup aborts it; once the session is open, signals cancel the turn.
  const signals = new RunSignals(ctx, out.warn, () => setupAbort.abort());
  const finish = async (code: number, force = false): Promise<number> => {
    signals.off();
    progress.done();
    await runtime.close({ force });
    if (fd !== undefined) closeSync(fd);
    return code;
  };

  let opened: OpenedAgent;
  try {
    opened = await runtime.open({
      ...openBase(a, args.session, setupAbort.signal, progress),
      createdBy: 'run',
      onEvent: out.event,
      client: {
        permission: permissionConfig(args.approve),
        setupTimeoutMs: a.setupTimeoutMs,
        logger: stderrLogger(io.stderr, a.verbose, out.breakLine),
        clientInfo: { name: 'talaria', version: ctx.version, title: 'Talaria CLI' },
        ...(fd !== undefined ? { onFrame: (f) => void writeSync(fd, formatWireLine(f) + '\n') } : {}),
      },
    });
  } catch (err) {
    progress.done();
    const code = out.setupFailed(setupFailure(err), { cwd: a.cwd, talaria: ctx.version }, startedAt);
    return finish(code, true);
  }
  progress.done();
  const { session } = opened;
  signals.armed(() => void session.cancel());
  const sessionId = opened.talariaId;
  // Read when the turn ends: a reseed (after an overflow) moves the session to a new agent session mid-turn.
  const ids = () => ({ sessionId, agentSessionId: session.id });
  if (opened.banner) out.warn(opened.banner);
  // Reopened from the store (the agent lost it): say so, the agent starts without the earlier context.
  if (opened.origin === 'restored' && !args.json && !args.ndjson) {
    const why = [...session.thread.entries].reverse().find((e) => e.kind === 'notice' && e.code === 'history_restored');
    if (why?.kind === 'notice') out.warn(`note: ${why.text}`);
  }
  const loaded = opened.origin === 'loaded' || opened.origin === 'resumed';
  out.opened(
    sessionId,
    {
      agent: opened.label,
      cwd: session.cwd,
      talaria: ctx.version,
      agentSessionId: session.id,
      ...(loaded ? { loaded } : {}),
      ...(opened.origin ? { origin: opened.origin } : {}),
    },
    startedAt,
  );
  const asks = answerAsksForRun(
    io,
    {
      entries: () => session.thread.entries,
      pending: (key) => session.pendingPermissions().some((p) => p.requestKey === key),
      answer: (ask, answer) => void session.answerPermission(ask.requestKey, answer, 'cli'),
      // After this event has reached every listener, so `decided` never overtakes `asked`. No
      // answeredBy: no person answered (and a replay of the wire log cannot know one did).
      reject: (ask) => queueMicrotask(() => session.answerPermission(ask.requestKey, { choice: 'reject_once' })),
    },
    { interactive: interactiveRun(args, io), note: out.warn, onInterrupt: signals.interrupt, beforeAsk: out.breakLine },
  );
  const offAsks = session.subscribe(asks.handle);

  // ---- the turn ----
  // Only this turn is printed: a reopened session's history is not part of the answer.
  out.begin();
  const turn = session.prompt(prompt);
  out.turn(turn.id);
  const outcome = await Promise.race([turn.result, signals.forced]);
  offAsks();
  asks.close();
  if (outcome === 'forced') {
    const durationMs = Date.now() - (turn.startedAt || startedAt);
    const code = out.end({ stopped: 'forced', turnId: turn.id, durationMs }, ids(), session.thread);
    return finish(code, true);
  }
  const lost = opened.recordingFailure?.();
  const storeProblem = lost ? { code: storeCodeOf(lost), message: storeProblemLine(lost) } : undefined;
  const code = out.end({ result: outcome, ...(storeProblem ? { storeProblem } : {}) }, ids(), session.thread);
  const crashed = outcome.error?.code === 'agent_crashed' || outcome.error?.code === 'connection_closed';
  return finish(code, crashed);
}
