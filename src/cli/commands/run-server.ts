/**
 * `talaria run` through a running `talaria serve` (issue 16): the server's warm agent answers,
 * the session is a normal server session (the web UI lists it), and the CLI prints, asks and
 * exits exactly as the local run does. Anything that fails before the session exists sends the
 * run back to the local harness ('fallback'), which then says what is wrong in its own words.
 */
import { applyEvent, connectServer } from '../../server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../server/contract/index.js';
import type { SessionEvent } from '../../session/events.js';
import type { TurnResult } from '../../session/turn.js';
import type { Entry, Thread } from '../../thread/types.js';
import type { ApproveMode } from '../approve.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import type { Style } from '../render/style.js';
import { runJson } from '../result.js';
import { DEMO_BANNER, DEMO_NOTE } from '../runtime-types.js';
import { nodeFetch } from '../node-fetch.js';
import type { ServerDiscovery } from '../server-discovery.js';
import type { AgentArgs, CliContext } from './common.js';
import { HumanRunOutput, runNote } from './run-human.js';
import { noteOutcome } from './run-outcome.js';
import { answerAsksOnServer } from './run-server-asks.js';
import { streamFeed } from './run-server-feeds.js';
import { runTrace } from '../run-trace.js';
import { TurnWatch } from '../../server/contract/turn-watch.js';

export interface ServerRunOptions {
  prompt: string;
  approve: ApproveMode;
  json: boolean;
  a: AgentArgs;
  sessionArg: string | undefined;
  interactive: boolean;
  errStyle: Style;
}

/** The permission mode a new server session gets for `--approve` ('ask' is the server's default: left out, so a warm spare fits). */
const MODE: Partial<Record<ApproveMode, string>> = { edits: 'accept-edits', all: 'auto' };

type Ended = Extract<StreamEvent, { type: 'turn.ended' }>;

/** Why a run ended without its turn's end. */
const STOPPED = {
  forced: 'talaria run: quit before the turn ended',
  closed: 'talaria run: the server closed the connection before the turn ended',
  removed:
    "talaria run: the prompt left the session's queue without a turn of its own (removed, or cleared by a cancel)",
} as const;

export async function runOnServer(
  found: ServerDiscovery,
  o: ServerRunOptions,
  ctx: Pick<CliContext, 'io' | 'version' | 'onInterrupt' | 'onTerminate'>,
): Promise<number | 'fallback'> {
  const { io } = ctx;
  const { a, errStyle } = o;
  // The printer exists from the start: every stderr line of the run starts on a line of its own
  // when the answer left one open (human?.breakLine()).
  const human = o.json ? undefined : new HumanRunOutput(io, errStyle);
  const note = runNote(io, human);
  const verbose = (text: string) => (a.verbose ? note(`talaria run: ${text}`) : undefined);
  const trace = runTrace(io);
  // Answers to asks and the cancel go over plain HTTP; the events come from the feed.
  const client = connectServer(found.url, found.token, { fetch: nodeFetch });

  // ---- signals first: a Ctrl-C or SIGTERM from here on is this run's, never the default kill (which
  // would leave the prompt queued on the server). Until the turn is set up it is remembered, then acted on.
  let interrupts = 0;
  let forceQuit!: () => void;
  const forced = new Promise<'forced'>((r) => (forceQuit = () => r('forced')));
  let cancel: (() => void) | undefined;
  const interrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      note(errStyle.yellow('Cancelling the turn… (Ctrl-C again to quit at once)'));
      cancel?.();
    } else forceQuit();
  };
  const offInterrupt = ctx.onInterrupt(interrupt);
  let terminated = false;
  let termTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    cancel?.();
    termTimer = setTimeout(forceQuit, 5_000);
    termTimer.unref();
  };
  const offTerminate = ctx.onTerminate((signal) => {
    if (terminated) return forceQuit();
    terminated = true;
    note(errStyle.yellow(`talaria run: ${signal}: cancelling the turn`));
    if (cancel) terminate();
  });
  const offSignals = () => {
    offInterrupt();
    offTerminate();
    if (termTimer) clearTimeout(termTimer);
  };
  trace('loaded');

  // ---- setup: any failure before a prompt was sent runs the turn locally instead ----
  const profile = a.choice.profile !== undefined ? { profile: a.choice.profile } : {};
  const mode = MODE[o.approve];
  const setup = await Promise.race([
    streamFeed(
      found,
      o.sessionArg !== undefined
        ? { session: o.sessionArg, text: o.prompt, ...profile }
        : {
            path: a.cwd,
            text: o.prompt,
            ...(a.choice.agent !== undefined ? { provider: a.choice.agent } : {}),
            ...profile,
            ...(mode ? { permissionMode: mode } : {}),
          },
    ),
    forced,
  ]);
  if (setup === 'forced') {
    offSignals();
    note(STOPPED.forced);
    return EXIT.CANCELLED;
  }
  if ('fallback' in setup) {
    offSignals();
    // Interrupted before the server took the prompt: nothing to cancel, and nothing to run locally either.
    if (interrupts > 0 || terminated) return EXIT.CANCELLED;
    verbose(`${setup.fallback}; running locally`);
    return 'fallback';
  }
  if ('failed' in setup) {
    offSignals();
    note(errStyle.red(`talaria run: the server did not take the prompt: ${setup.failed}`));
    return EXIT.AGENT_ERROR;
  }
  const feed = setup;
  let snap: SessionSnapshot = feed.snap;
  const sent = feed.sent;
  const closed = feed.closed;
  trace('session');
  const sessionId = snap.session.id;
  verbose(`using the server at ${found.url} (session ${sessionId})`);

  // ---- the stream: the same events the local session emits, folded into a mirror of the thread ----
  const provider = snap.session.provider;
  if (a.choice.agent === 'demo') note(errStyle.yellow(DEMO_NOTE));
  else if (o.sessionArg === undefined && a.choice.agent === undefined && provider === 'demo')
    note(errStyle.yellow(DEMO_BANNER));
  const watch = new TurnWatch();
  watch.sent(sent);
  const cancelTurn = () => void client.api.cancel({ params: { id: sessionId } }).catch(() => undefined);
  /** The run's prompt was still queued at the cancel and started before it was removed: cancel it once known. */
  let cancelOnStart = false;
  cancel = () => {
    const queued = watch.queuedId;
    if (queued === undefined) return cancelTurn();
    // Still queued: only this run's prompt leaves the queue (the running turn is someone else's).
    void client.api.removeQueued({ params: { id: sessionId, item: queued } }).catch(() => {
      if (watch.turnId !== undefined) cancelTurn();
      else cancelOnStart = true;
    });
  };
  // A signal that came while the prompt was being sent: act on it now that there is a turn to cancel.
  if (terminated) terminate();
  else if (interrupts > 0) cancel();
  const asks = answerAsksOnServer(client, sessionId, io, () => snap.thread.entries as Entry[], {
    interactive: o.interactive,
    note: (t) => note(errStyle.yellow(t)),
    onInterrupt: interrupt,
    beforeAsk: () => human?.breakLine(),
  });

  let over!: (how: Ended | 'removed') => void;
  const ended = new Promise<Ended | 'removed'>((r) => (over = r));
  const check = () => {
    if (cancelOnStart && watch.turnId !== undefined) {
      cancelOnStart = false;
      cancelTurn();
    }
    if (watch.end) over(watch.end);
    else if (watch.removedSeq !== undefined) over('removed');
  };
  /**
   * Whether an event is this run's to print and answer: its turn's entries, and anything else
   * while its turn runs. A queued run's session is running someone else's turn first: that turn's
   * text is not this run's answer, and its permission asks are not this terminal's to answer.
   */
  const mine = (e: StreamEvent): boolean => {
    const turnId = watch.turnId;
    if (turnId === undefined) return false;
    if (e.type === 'entry.added' || e.type === 'entry.updated' || e.type === 'entry.appended')
      return (snap.thread.entries[e.index] as Entry | undefined)?.turnId === turnId;
    return watch.end === undefined || e === watch.end;
  };
  let traced = false;
  human?.begin();
  feed.start({
    onSnapshot: (x, serverTurnId) => {
      snap = x;
      // A queued prompt that started inside the gap: only the server saw which turn is ours.
      watch.gap(x, serverTurnId);
      // The stream fell behind further than the server's log reaches: the events in between are
      // gone, so the printer takes what it missed of this turn from the snapshot.
      const turnId = watch.turnId;
      if (human && turnId !== undefined) for (const ev of missedByPrinter(x, turnId)) human.handle(ev);
      check();
    },
    onEvent: (e) => {
      if (!traced) traced = (trace('first-event'), true);
      applyEvent(snap, e);
      watch.see(e);
      if (mine(e)) {
        asks.handle(e);
        human?.handle(toSessionEvent(e, snap));
      }
      check();
    },
  });

  // ---- the turn ----
  const settle = async (code: number): Promise<number> => {
    asks.close();
    offSignals();
    feed.close();
    return code;
  };
  const outcome = await Promise.race([ended, forced, closed]);
  trace('ended');
  // The agent session id as it is now: an overflow reseed during the turn gives a new one, which
  // no stream event carries (read once, only for the --json report).
  const current = o.json
    ? await client.api
        .snapshot({ params: { id: sessionId } })
        .then((x) => x.snapshot.session.agentSessionId)
        .catch(() => undefined)
    : undefined;
  const ids = { sessionId, agentSessionId: current ?? snap.session.agentSessionId ?? '' };
  if (outcome === 'forced' || outcome === 'closed' || outcome === 'removed') {
    human?.finish();
    note(STOPPED[outcome]);
    const partial: TurnResult = { turnId: watch.turnId ?? '', stopReason: 'cancelled', durationMs: 0 };
    const code = outcome === 'closed' ? EXIT.AGENT_ERROR : EXIT.CANCELLED;
    if (o.json) io.stdout.write(JSON.stringify(runJson(ids, snap.thread as unknown as Thread, partial, code)) + '\n');
    return settle(code);
  }
  const r: TurnResult = {
    turnId: outcome.turnId,
    stopReason: outcome.stopReason,
    durationMs: outcome.durationMs,
    ...(outcome.usage ? { usage: outcome.usage as TurnResult['usage'] } : {}),
    ...(outcome.error ? { error: outcome.error as TurnResult['error'] } : {}),
  } as TurnResult;
  const code = exitCodeFor(r.stopReason);
  if (o.json) io.stdout.write(JSON.stringify(runJson(ids, snap.thread as unknown as Thread, r, code)) + '\n');
  human?.finish();
  noteOutcome(r, code, note, errStyle);
  return settle(code);
}

/**
 * A turn's messages and tool calls in a snapshot, as the events that would have shown them. The
 * printer prints only what it has not (a message's text past what it printed, a tool call not yet
 * settled on screen), so after a gap the answer on the terminal goes on where it stopped.
 */
export function missedByPrinter(snap: SessionSnapshot, turnId: string): SessionEvent[] {
  const out: SessionEvent[] = [];
  (snap.thread.entries as Entry[]).forEach((entry, index) => {
    if (entry.turnId !== turnId || (entry.kind !== 'assistant_message' && entry.kind !== 'tool_call')) return;
    out.push({
      type: 'entry.updated',
      sessionId: snap.session.id,
      seq: 0,
      at: 0,
      index,
      entry,
    } as unknown as SessionEvent);
  });
  return out;
}

/** The stream's compact `entry.appended` is the bus's `entry.updated` with the whole entry (what the printer reads). */
function toSessionEvent(e: StreamEvent, snap: SessionSnapshot): SessionEvent {
  if (e.type === 'entry.appended')
    return {
      ...e,
      type: 'entry.updated',
      entry: snap.thread.entries[e.index],
      appended: e.text,
    } as unknown as SessionEvent;
  return e as unknown as SessionEvent;
}
