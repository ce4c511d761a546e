/**
 * Where every `talaria run` writes, whichever road its events come by (the in-process session,
 * run.ts, or a server's stream, run-server.ts): one sink per run — human text, --json or
 * --ndjson — fed SessionEvents, and one mapping from how the run ended to its last lines and its
 * exit code. Light (no harness, no store): the warm path loads it.
 */
import type { SessionEvent } from '../../session/events.js';
import type { TurnResult } from '../../session/turn.js';
import type { Thread } from '../../thread/types.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { formatAgentFailure, type FailureDetails } from '../failure.js';
import { colorEnabled, type CliIo } from '../io.js';
import { NdjsonWriter, type RunStarted } from '../ndjson.js';
import { createStyle, type Style } from '../render/style.js';
import { failureJson, runJson } from '../result.js';
import { HumanRunOutput } from './run-human.js';

/** How many protocol errors are shown in human mode before they are only counted. */
const SHOWN_PROTOCOL_ERRORS = 3;

/** Why a run ended without its turn's end. */
const STOPPED = {
  forced: 'talaria run: quit before the turn ended',
  closed: 'talaria run: the server closed the connection before the turn ended',
  removed:
    "talaria run: the prompt left the session's queue without a turn of its own (removed, or cleared by a cancel)",
} as const;

export type RunIds = { sessionId: string; agentSessionId: string };

/** How a run ended: its turn's result (a store that lost the turn fails it), or stopped before that. */
export type RunEnd =
  | { result: TurnResult; storeProblem?: { code: string; message: string } }
  | { stopped: keyof typeof STOPPED; turnId: string; durationMs: number };

export class RunOutput {
  readonly errStyle: Style;
  private readonly human: HumanRunOutput | undefined;
  private readonly writer: NdjsonWriter | undefined;
  /** Talaria's id of the session, once open: every line and result carries it (the agent's id is a second field). */
  private talariaId: string | null = null;
  /** --ndjson: events before `run.started` wait for it (snapshots: entries mutate). */
  private early: SessionEvent[] | undefined = [];
  /** The run's turn: once it ended, what follows (closing, the host recovering the session) is not part of the run. */
  private turnId: string | undefined;
  private over = false;
  private protocolErrors = 0;

  constructor(
    private readonly io: CliIo,
    private readonly mode: { json: boolean; ndjson: boolean; verbose: boolean },
  ) {
    this.errStyle = createStyle(colorEnabled(io.stderr, io.env));
    // The client reports protocol errors for the whole connection ('*'); a run has one session.
    this.writer = mode.ndjson
      ? new NdjsonWriter(
          (line) => void io.stdout.write(line),
          Date.now,
          (id) => this.talariaId ?? id,
        )
      : undefined;
    this.human = !mode.json && !mode.ndjson ? new HumanRunOutput(io, this.errStyle) : undefined;
  }

  /** A stderr line of the run: on a line of its own when the answer left one open. */
  readonly note = (text: string): void => {
    this.breakLine();
    this.io.stderr.write(`${text}\n`);
  };

  readonly warn = (text: string): void => this.note(this.errStyle.yellow(text));

  /** Before anything else writes to stderr during the run (a log line, a question). */
  readonly breakLine = (): void => this.human?.breakLine();

  readonly event = (e: SessionEvent): void => {
    if (this.over) return; // closing the session after the run's end is not part of the run
    if (e.type === 'protocol.error') {
      this.protocolErrors++;
      if (!this.writer && (this.protocolErrors <= SHOWN_PROTOCOL_ERRORS || this.mode.verbose))
        this.warn(`warning: the agent wrote a line that is not ACP (${e.kind}): ${e.preview.slice(0, 120)}`);
    }
    if (e.type === 'turn.ended' && e.turnId === this.turnId) this.over = true;
    if (!this.writer) return this.human?.handle(e);
    if (this.early) this.early.push(JSON.parse(JSON.stringify(e)) as SessionEvent);
    else this.writer.event(e);
  };

  /** The session is open: --ndjson's first line, then what came before it. */
  opened(talariaId: string, started: RunStarted, at: number): void {
    this.talariaId = talariaId;
    if (!this.writer) return;
    this.writer.started(talariaId, started, at);
    for (const e of this.early!.splice(0)) this.writer.event(e);
    this.early = undefined;
  }

  /** From now on the run's own turn (a reopened session's history is not part of the answer). */
  begin(): void {
    this.human?.begin();
  }

  /** The run's turn, once it is known. */
  turn(id: string): void {
    this.turnId = id;
  }

  /** No turn could run: the setup's failure, in each output. */
  setupFailed(f: { exitCode: number; code: string; message: string }, started: RunStarted, at: number): number {
    this.note(`talaria run: ${f.message}`);
    const error = { code: f.code, message: f.message };
    if (this.mode.json) this.io.stdout.write(JSON.stringify(failureJson(null, f.exitCode, error)) + '\n');
    this.writer?.started(null, started, at);
    this.writer?.ended(null, { stopReason: 'error', exitCode: f.exitCode, error });
    return f.exitCode;
  }

  /** The run's last lines, and its exit code. */
  end(end: RunEnd, ids: RunIds, thread: Thread): number {
    this.over = true;
    if ('stopped' in end) {
      this.human?.finish();
      this.note(STOPPED[end.stopped]);
      const code = end.stopped === 'closed' ? EXIT.AGENT_ERROR : EXIT.CANCELLED;
      // Scripts still get a result: what the turn produced so far, cancelled.
      const partial: TurnResult = { turnId: end.turnId, stopReason: 'cancelled', durationMs: end.durationMs };
      this.json(ids, thread, partial, code);
      this.writer?.ended(ids.sessionId, { stopReason: 'cancelled', exitCode: code });
      return code;
    }
    // A turn that is not on disk failed, whatever the agent answered: the store's problem decides the exit.
    const { storeProblem } = end;
    const r: TurnResult = storeProblem && !end.result.error ? { ...end.result, error: storeProblem } : end.result;
    const code = storeProblem ? EXIT.NOT_READY : exitCodeFor(r.stopReason);
    this.json(ids, thread, r, code);
    this.writer?.ended(ids.sessionId, {
      stopReason: r.stopReason,
      exitCode: code,
      durationMs: r.durationMs,
      ...(r.usage ? { usage: r.usage } : {}),
      ...(r.error ? { error: r.error } : {}),
    });
    if (this.human) {
      this.human.finish();
      if (this.protocolErrors > SHOWN_PROTOCOL_ERRORS && !this.mode.verbose)
        this.warn(`warning: ${this.protocolErrors} lines from the agent were not ACP (ignored)`);
    }
    if (storeProblem) this.note(this.errStyle.red(`talaria run: ${storeProblem.message}`));
    else this.noteOutcome(r, code);
    return code;
  }

  private json(ids: RunIds, thread: Thread, r: TurnResult, code: number): void {
    if (this.mode.json) this.io.stdout.write(JSON.stringify(runJson(ids, thread, r, code)) + '\n');
  }

  /** The closing line on stderr for a turn that did not simply end. */
  private noteOutcome(r: TurnResult, code: number): void {
    const s = this.errStyle;
    if (r.error) {
      const details = (r.error.data ?? {}) as FailureDetails;
      this.note(s.red(`talaria run: ${formatAgentFailure(`${r.error.code}: ${r.error.message}`, details)}`));
    } else if (r.stopReason === 'cancelled') this.warn('talaria run: cancelled');
    else if (r.stopReason === 'refusal') this.warn('talaria run: the agent refused');
    else if (r.stopReason === 'permission_denied')
      this.warn('talaria run: the agent stopped because a permission was denied');
    else if (code === EXIT.LIMIT) this.warn(`talaria run: the agent stopped at a limit (${r.stopReason})`);
  }
}
