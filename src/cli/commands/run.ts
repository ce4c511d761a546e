/** `talaria run`: one turn for scripts (human text, --json or --ndjson), exit code per outcome. */
import { closeSync, openSync, writeSync } from 'node:fs';
import { formatWireLine } from '../../protocol/wire-log.js';
import type { SessionEvent } from '../../session/events.js';
import type { TurnResult } from '../../session/turn.js';
import { parse, str, flag, choice, UsageError } from '../args.js';
import { APPROVE_MODES, answerAsksForRun, permissionConfig } from '../approve.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { RUN_HELP } from '../help.js';
import { colorEnabled, createProgress, stderrLogger } from '../io.js';
import { NdjsonWriter } from '../ndjson.js';
import { createStyle } from '../render/style.js';
import { failureJson, runJson } from '../result.js';
import type { OpenedAgent } from '../runtime.js';
import { RUN_OPTIONS, serverEligible } from './run-options.js';
import { agentArgs, readPrompt, setupFailure, storeCodeOf, type CliContext, openBase } from './common.js';
import { storeProblemLine } from '../store-problem.js';
import { HumanRunOutput, runNote } from './run-human.js';
import { findServer } from '../server-discovery.js';
import { talariaHome } from '../../os/home.js';
import { currentEnv } from '../../providers/locate.js';
import { homedir } from 'node:os';
import { noteOutcome } from './run-outcome.js';

const OPTIONS = RUN_OPTIONS;

/** How long an agent gets to answer the cancel after SIGTERM/SIGHUP before it is stopped. */
const TERM_GRACE_MS = 5_000;

/** How many protocol errors are shown in human mode before they are only counted. */
const SHOWN_PROTOCOL_ERRORS = 3;

export async function runCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const startedAt = Date.now();
  const p = parse('run', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${RUN_HELP}\n`);
    return EXIT.OK;
  }
  const json = flag(p, 'json');
  const ndjson = flag(p, 'ndjson');
  if (json && ndjson) throw new UsageError('run: pass either --json or --ndjson, not both');
  const approve = choice('run', 'approve', str(p, 'approve'), APPROVE_MODES, 'ask');
  const a = agentArgs('run', p);
  const promptFromStdin = p.positionals.length === 1 && p.positionals[0] === '-';
  const prompt = await readPrompt('run', p.positionals, io);
  const sessionArg = str(p, 'session');
  const errStyle = createStyle(colorEnabled(io.stderr, io.env));

  // ---- outputs ----
  /** Talaria's id of the session, once open: every line and result carries it (the agent's id is a second field). */
  let talariaId: string | null = null;
  // The client reports protocol errors for the whole connection ('*'); a run has one session.
  const writer = ndjson
    ? new NdjsonWriter(
        (line) => void io.stdout.write(line),
        Date.now,
        (id) => talariaId ?? id,
      )
    : undefined;
  const human = !json && !ndjson ? new HumanRunOutput(io, errStyle) : undefined;
  // Every stderr line of the run starts on a line of its own when the answer left one open.
  const breakLine = () => human?.breakLine();
  const note = runNote(io, human);
  let started = false;
  let ended = false;
  /** The run's turn: once it ended, what follows (closing, the host recovering the session) is not part of the run. */
  let turnId: string | undefined;
  const early: SessionEvent[] = [];
  let protocolErrors = 0;
  const emit = (e: SessionEvent) => writer!.event(e);
  const onEvent = (e: SessionEvent) => {
    if (ended) return; // closing the session after run.ended is not part of the run
    if (e.type === 'protocol.error') {
      protocolErrors++;
      if (!writer && (protocolErrors <= SHOWN_PROTOCOL_ERRORS || a.verbose)) {
        note(
          errStyle.yellow(`warning: the agent wrote a line that is not ACP (${e.kind}): ${e.preview.slice(0, 120)}`),
        );
      }
    }
    if (e.type === 'turn.ended' && e.turnId === turnId) ended = true;
    if (!writer) return human?.handle(e);
    if (started) emit(e);
    else early.push(JSON.parse(JSON.stringify(e)) as SessionEvent); // a snapshot: entries mutate
  };

  // A running `talaria serve` on this home answers from its warm agent (issue 16); main.ts tries
  // that first (run-fast.ts); this covers the rest (a prompt on stdin) and, with --verbose, says why a
  // server was not used. Flags the server cannot honour
  // (run-options.ts) keep the run local, as does any failure before the turn.
  const interactive = approve !== 'none' && !promptFromStdin && io.stdin.isTTY === true && io.stderr.isTTY === true;
  if (ctx.serverSkipped !== undefined) {
    if (a.verbose && ctx.serverSkipped !== '') note(`talaria run: ${ctx.serverSkipped}; running locally`);
  } else if (serverEligible(p, io.env, approve)) {
    const found = findServer(talariaHome(currentEnv({ env: io.env, homeDir: io.env.HOME || homedir() })));
    if ('server' in found) {
      // Loaded only when used: the HTTP/ws client and its schemas stay off a local run's start-up.
      const { runOnServer } = await import('./run-server.js');
      const code = await runOnServer(
        found.server,
        { prompt, approve, json, a, sessionArg, interactive, errStyle },
        ctx,
      );
      if (code !== 'fallback') return code;
    } else if (a.verbose) note(`talaria run: ${found.skipped}; running locally`);
  }

  let wireFd: number | undefined;
  const wireLog = str(p, 'wire-log');
  if (wireLog !== undefined) {
    try {
      wireFd = openSync(wireLog, 'w');
    } catch (err) {
      throw new UsageError(`run: cannot write --wire-log ${wireLog}: ${(err as Error).message}`);
    }
  }
  const fd = wireFd;

  // ---- setup ----
  const runtime = ctx.runtime();
  const setupAbort = new AbortController();
  // Progress is for people (a TTY) or --verbose; scripts get a quiet stderr.
  const progress = createProgress(io.stderr, {
    tty: io.stderr.isTTY === true,
    quiet: io.stderr.isTTY !== true && !a.verbose,
  });
  let opened: OpenedAgent | undefined;
  let interrupts = 0;
  let forceQuit!: () => void;
  const forced = new Promise<'forced'>((r) => (forceQuit = () => r('forced')));
  const interrupt = () => {
    interrupts++;
    if (!opened) return setupAbort.abort();
    if (interrupts === 1) {
      note(errStyle.yellow('Cancelling the turn… (Ctrl-C again to quit at once)'));
      void opened.session.cancel();
    } else forceQuit();
  };
  const offInterrupt = ctx.onInterrupt(interrupt);
  // SIGTERM / SIGHUP (a supervisor, `timeout`, a closed terminal): the turn is cancelled and its
  // result printed like after Ctrl-C; an agent that ignores the cancel is stopped after a grace.
  let terminated: NodeJS.Signals | undefined;
  let termTimer: NodeJS.Timeout | undefined;
  const terminate = (signal: NodeJS.Signals) => {
    if (!opened) return setupAbort.abort();
    if (terminated) return forceQuit();
    terminated = signal;
    note(errStyle.yellow(`talaria run: ${signal}: cancelling the turn`));
    void opened.session.cancel();
    termTimer = setTimeout(forceQuit, TERM_GRACE_MS);
    termTimer.unref();
  };
  const offTerminate = ctx.onTerminate(terminate);

  const finish = async (code: number, force = false): Promise<number> => {
    offInterrupt();
    offTerminate();
    if (termTimer) clearTimeout(termTimer);
    progress.done();
    await runtime.close({ force });
    if (fd !== undefined) closeSync(fd);
    return code;
  };

  try {
    opened = await runtime.open({
      ...openBase(a, sessionArg, setupAbort.signal, progress),
      createdBy: 'run',
      onEvent,
      client: {
        permission: permissionConfig(approve),
        setupTimeoutMs: a.setupTimeoutMs,
        logger: stderrLogger(io.stderr, a.verbose, breakLine),
        clientInfo: { name: 'talaria', version: ctx.version, title: 'Talaria CLI' },
        ...(fd !== undefined ? { onFrame: (f) => void writeSync(fd, formatWireLine(f) + '\n') } : {}),
      },
    });
  } catch (err) {
    const f = setupFailure(err);
    progress.done();
    note(`talaria run: ${f.message}`);
    if (json)
      io.stdout.write(JSON.stringify(failureJson(null, f.exitCode, { code: f.code, message: f.message })) + '\n');
    if (writer) {
      writer.started(null, { cwd: a.cwd, talaria: ctx.version }, startedAt);
      writer.ended(null, { stopReason: 'error', exitCode: f.exitCode, error: { code: f.code, message: f.message } });
    }
    return finish(f.exitCode, true);
  }
  progress.done();
  const { session } = opened;
  talariaId = opened.talariaId;
  const sessionId = opened.talariaId;
  // Read when the turn ends: a reseed (after an overflow) moves the session to a new agent session mid-turn.
  const ids = () => ({ sessionId, agentSessionId: session.id });
  if (opened.banner) note(errStyle.yellow(opened.banner));
  // Reopened from the store (the agent lost it): say so, the agent starts without the earlier context.
  if (opened.origin === 'restored' && human) {
    const why = [...session.thread.entries].reverse().find((e) => e.kind === 'notice' && e.code === 'history_restored');
    if (why?.kind === 'notice') note(errStyle.yellow(`note: ${why.text}`));
  }
  if (writer) {
    const loaded = opened.origin === 'loaded' || opened.origin === 'resumed';
    writer.started(
      opened.talariaId,
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
    started = true;
    for (const e of early.splice(0)) emit(e);
  }
  const offAsks = answerAsksForRun(session, io, {
    interactive,
    note: (t) => note(errStyle.yellow(t)),
    onInterrupt: interrupt,
    beforeAsk: breakLine,
  });

  // ---- the turn ----
  // Only this turn is printed: a reopened session's history is not part of the answer.
  human?.begin();
  const turn = session.prompt(prompt);
  turnId = turn.id;
  const outcome = await Promise.race([turn.result, forced]);
  offAsks();
  if (outcome === 'forced') {
    human?.finish();
    note('talaria run: quit before the turn ended');
    ended = true;
    // Scripts still get a result: what the turn produced so far, cancelled.
    const partial: TurnResult = {
      turnId: turn.id,
      stopReason: 'cancelled',
      durationMs: Date.now() - (turn.startedAt || startedAt),
    };
    if (json) io.stdout.write(JSON.stringify(runJson(ids(), session.thread, partial, EXIT.CANCELLED)) + '\n');
    writer?.ended(sessionId, { stopReason: 'cancelled', exitCode: EXIT.CANCELLED });
    return finish(EXIT.CANCELLED, true);
  }
  ended = true;
  // A turn that is not on disk failed, whatever the agent answered: the store's problem decides the exit.
  const lost = opened.recordingFailure?.();
  const storeProblem = lost ? { code: storeCodeOf(lost), message: storeProblemLine(lost) } : undefined;
  const r: TurnResult = storeProblem && !outcome.error ? { ...outcome, error: storeProblem } : outcome;
  const code = storeProblem ? EXIT.NOT_READY : exitCodeFor(r.stopReason);
  if (json) io.stdout.write(JSON.stringify(runJson(ids(), session.thread, r, code)) + '\n');
  if (writer) {
    writer.ended(sessionId, {
      stopReason: r.stopReason,
      exitCode: code,
      durationMs: r.durationMs,
      ...(r.usage ? { usage: r.usage } : {}),
      ...(r.error ? { error: r.error } : {}),
    });
  }
  if (human) {
    human.finish();
    if (protocolErrors > SHOWN_PROTOCOL_ERRORS && !a.verbose)
      note(errStyle.yellow(`warning: ${protocolErrors} lines from the agent were not ACP (ignored)`));
  }
  if (storeProblem) note(errStyle.red(`talaria run: ${storeProblem.message}`));
  else noteOutcome(r, code, note, errStyle);
  const crashed = r.error?.code === 'agent_crashed' || r.error?.code === 'connection_closed';
  return finish(code, crashed);
}
