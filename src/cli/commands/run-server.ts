/**
 * `talaria run` through a running `talaria serve` (issue 16): the server's warm agent answers,
 * the session is a normal server session (the web UI lists it), and the CLI prints, asks and
 * exits exactly as the local run does. Anything that fails before the session exists sends the
 * run back to the local harness ('fallback'), which then says what is wrong in its own words.
 */
import { createRequire } from 'node:module';
import { applyEvent, connectServer, ServerError, type WebSocketCtor } from '../../server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../server/contract/index.js';
import type { SessionEvent } from '../../session/events.js';
import type { TurnResult } from '../../session/turn.js';
import type { Entry, Thread } from '../../thread/types.js';
import type { ApproveMode } from '../approve.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import type { Style } from '../render/style.js';
import { runJson } from '../result.js';
import { DEMO_BANNER, DEMO_NOTE } from '../runtime-types.js';
import { nodeFetch } from '../node-fetch.js';
import { LIVENESS_TIMEOUT_MS, type ServerDiscovery } from '../server-discovery.js';
import type { AgentArgs, CliContext } from './common.js';
import { HumanRunOutput } from './run-human.js';
import { noteOutcome } from './run-outcome.js';
import { answerAsksOnServer } from './run-server-asks.js';
import { runTrace } from '../run-trace.js';

export interface ServerRunOptions {
  prompt: string;
  approve: ApproveMode;
  json: boolean;
  a: AgentArgs;
  sessionArg: string | undefined;
  interactive: boolean;
  errStyle: Style;
}

// `ws` through require: importing its CommonJS entry from ESM starts Node's CJS export scanner (start-up time the run feels).
const WebSocket = createRequire(import.meta.url)('ws') as WebSocketCtor;

/** The permission mode a new server session gets for `--approve` ('ask' is the server's default: left out, so a warm spare fits). */
const MODE: Partial<Record<ApproveMode, string>> = { edits: 'accept-edits', all: 'auto' };

type Ended = Extract<StreamEvent, { type: 'turn.ended' }>;

export async function runOnServer(
  found: ServerDiscovery,
  o: ServerRunOptions,
  ctx: Pick<CliContext, 'io' | 'version' | 'onInterrupt' | 'onTerminate'>,
): Promise<number | 'fallback'> {
  const { io } = ctx;
  const { a, errStyle } = o;
  const note = (text: string) => void io.stderr.write(`${text}\n`);
  const verbose = (text: string) => (a.verbose ? note(`talaria run: ${text}`) : undefined);
  const trace = runTrace(io);
  trace('loaded');
  const client = connectServer(found.url, found.token, { WebSocket, fetch: nodeFetch });
  let socketClosed!: () => void;
  const closed = new Promise<'closed'>((r) => (socketClosed = () => r('closed')));
  // No reconnect: a run lives as long as its turn, and a server that went away ends it.
  const socket = client.socket({ reconnect: false, onClose: () => socketClosed() });

  // ---- setup: any failure here runs the turn locally instead ----
  // serve.json only names a server (its pid may be reused): the socket's welcome proves one answers.
  // Nothing was sent before it, so a server that is gone or hung leaves the run local, safely.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(r, LIVENESS_TIMEOUT_MS, 'late')));
  const ready = await Promise.race([socket.ready(), closed, late]);
  clearTimeout(timer);
  trace('welcome');
  if (ready !== undefined) {
    verbose(`the server at ${found.url} does not answer (${ready === 'late' ? `no welcome within ${LIVENESS_TIMEOUT_MS} ms` : 'the live connection closed'}); running locally`);
    socket.close();
    return 'fallback';
  }
  let snap: SessionSnapshot;
  /** Set when the server already took the prompt (`POST /api/run`: one request for workspace, session and prompt). */
  let sent: { id: string; queued: boolean } | undefined;
  try {
    const profile = a.choice.profile !== undefined ? { profile: a.choice.profile } : {};
    if (o.sessionArg !== undefined) {
      snap = (await client.api.openSession({ params: { id: o.sessionArg }, body: profile })).snapshot;
    } else {
      const mode = MODE[o.approve];
      const body = { path: a.cwd, text: o.prompt, ...(a.choice.agent !== undefined ? { provider: a.choice.agent } : {}), ...profile, ...(mode ? { permissionMode: mode } : {}) };
      const r = await client.api.run({ body });
      snap = r.snapshot;
      sent = r.turn;
    }
  } catch (err) {
    // An answer (ServerError) or a refused connection: the server sent no prompt. Anything else
    // (a connection lost mid-request) may have started the turn: not run again here.
    if (o.sessionArg === undefined && !(err instanceof ServerError) && (err as { code?: string }).code !== 'ECONNREFUSED') {
      note(errStyle.red(`talaria run: the server did not take the prompt: ${(err as Error).message}`));
      socket.close();
      return EXIT.AGENT_ERROR;
    }
    verbose(`the server at ${found.url} could not open the session (${(err as Error).message}); running locally`);
    socket.close();
    return 'fallback';
  }
  trace('session');
  const sessionId = snap.session.id;
  verbose(`using the server at ${found.url} (session ${sessionId})`);

  // ---- the stream: the same events the local session emits, folded into a mirror of the thread ----
  const human = o.json ? undefined : new HumanRunOutput(io, errStyle);
  const provider = snap.session.provider;
  if (a.choice.agent === 'demo') note(errStyle.yellow(DEMO_NOTE));
  else if (o.sessionArg === undefined && a.choice.agent === undefined && provider === 'demo') note(errStyle.yellow(DEMO_BANNER));
  let interrupts = 0;
  let forceQuit!: () => void;
  const forced = new Promise<'forced'>((r) => (forceQuit = () => r('forced')));
  const cancel = () => void client.api.cancel({ params: { id: sessionId } }).catch(() => undefined);
  const interrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      note(errStyle.yellow('Cancelling the turn… (Ctrl-C again to quit at once)'));
      cancel();
    } else forceQuit();
  };
  const offInterrupt = ctx.onInterrupt(interrupt);
  let terminated = false;
  let termTimer: NodeJS.Timeout | undefined;
  const offTerminate = ctx.onTerminate((signal) => {
    if (terminated) return forceQuit();
    terminated = true;
    note(errStyle.yellow(`talaria run: ${signal}: cancelling the turn`));
    cancel();
    termTimer = setTimeout(forceQuit, 5_000);
    termTimer.unref();
  });
  const asks = answerAsksOnServer(client, sessionId, io, () => snap.thread.entries as Entry[], {
    interactive: o.interactive,
    note: (t) => note(errStyle.yellow(t)),
    onInterrupt: interrupt,
  });

  let pending = sent !== undefined;
  let turnId: string | undefined = sent && !sent.queued ? sent.id : undefined;
  let queuedId: string | undefined = sent?.queued ? sent.id : undefined;
  /** Turns that ended before the prompt's answer named ours (the socket can be faster than HTTP). */
  const endedTurns = new Map<string, Ended>();
  let onEnded: ((e: Ended) => void) | undefined;
  let synced!: () => void;
  const isSynced = new Promise<void>((r) => (synced = r));
  // A run's session: everything after the snapshot (taken before the prompt) is this run's.
  let live = sent !== undefined;
  let traced = false;
  if (live) human?.begin();
  socket.subscribe(
    sessionId,
    {
      onSnapshot: (s) => (snap = s),
      onSynced: () => synced(),
      onEvent: (e) => {
        if (!traced) traced = (trace('first-event'), true);
        applyEvent(snap, e);
        if (!live) return;
        // A queued prompt of ours starts as the first turn after it left the queue.
        if (e.type === 'queue.updated' && queuedId && !e.queue.some((q) => q.id === queuedId)) queuedId = undefined;
        if (e.type === 'turn.started' && turnId === undefined && queuedId === undefined && pending) turnId = e.turnId;
        asks.handle(e);
        human?.handle(toSessionEvent(e, snap));
        if (e.type === 'turn.ended') {
          endedTurns.set(e.turnId, e);
          if (e.turnId === turnId) onEnded?.(e);
        }
      },
    },
    sent !== undefined ? snap.seq : undefined,
  );
  const ended = new Promise<Ended>((r) => (onEnded = r));

  // ---- the turn ----
  const settle = async (code: number): Promise<number> => {
    asks.close();
    offInterrupt();
    offTerminate();
    if (termTimer) clearTimeout(termTimer);
    socket.close();
    return code;
  };
  if (sent === undefined) {
    // --session: the stream first (live from its sync), then the prompt.
    await Promise.race([isSynced, closed]);
    live = true;
    human?.begin();
    pending = true;
    try {
      const r = await client.api.prompt({ params: { id: sessionId }, body: { text: o.prompt } });
      if (r.queued) queuedId = r.id;
      else turnId = r.id;
    } catch (err) {
      note(errStyle.red(`talaria run: the server did not take the prompt: ${(err as Error).message}`));
      return settle(EXIT.AGENT_ERROR);
    }
  }
  const early = turnId !== undefined ? endedTurns.get(turnId) : undefined;
  const outcome = early ?? (await Promise.race([ended, forced, closed]));
  trace('ended');
  const ids = { sessionId, agentSessionId: snap.session.agentSessionId ?? '' };
  if (outcome === 'forced' || outcome === 'closed') {
    human?.finish();
    note(outcome === 'forced' ? 'talaria run: quit before the turn ended' : 'talaria run: the server closed the connection before the turn ended');
    const partial: TurnResult = { turnId: turnId ?? '', stopReason: 'cancelled', durationMs: 0 };
    const code = outcome === 'forced' ? EXIT.CANCELLED : EXIT.AGENT_ERROR;
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

/** The stream's compact `entry.appended` is the bus's `entry.updated` with the whole entry (what the printer reads). */
function toSessionEvent(e: StreamEvent, snap: SessionSnapshot): SessionEvent {
  if (e.type === 'entry.appended') return { ...e, type: 'entry.updated', entry: snap.thread.entries[e.index], appended: e.text } as unknown as SessionEvent;
  return e as unknown as SessionEvent;
}
