/**
 * How the CLI gets an agent: everything else in src/cli only sees `AgentRuntime`. This one goes
 * through the harness (src/harness): agent ids from the registry (`--agent hermes`, `--profile`),
 * `--agent-cmd` as an ad-hoc agent, `--session ID` reopening a stored session, every session
 * recorded in $TALARIA_HOME/talaria.db. With no agent asked for, the best READY one is used
 * (harness/choose.ts), else the demo agent with a banner.
 */
import { homedir } from 'node:os';
import { ConnectionClosedError, RPC, TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import type { Frame, ProtocolErrorEvent } from '../protocol/types.js';
import { currentEnv } from '../providers/locate.js';
import type { SessionEvent } from '../session/events.js';
import { describeError } from '../session/errors.js';
import {
  createHarness,
  sessionUsage,
  type Harness,
  type HarnessExtras,
  type HarnessOptions,
  type HarnessSession,
} from '../harness/index.js';
import { formatCost } from '../providers/hermes/state-db.js';
import { DEMO_BANNER, DEMO_NOTE, RuntimeError, type AgentRuntime } from './runtime-types.js';
import { urlAgent } from './agent-url.js';
import type { AgentKey } from '../host/events.js';
import { splitCommand, UsageError } from './args.js';
import { formatAgentFailure, type FailureDetails } from './failure.js';
import { stateEvents } from './state-events.js';
import { isStoreProblem, stillHeld } from './store-problem.js';
import { hostIdentity } from '../fleet/identity.js';

export * from './runtime-types.js';

type CliHarness = Harness & HarnessExtras;

/** The ProviderEnv of a CLI run: its environment, HOME from it (tests point it at temp folders). */
/**
 * `warm`: keep spare agent sessions (the warm pool). Only long-lived faces ask for it (serve,
 * chat): a one-shot command (run, sessions, doctor) would start an agent it never uses.
 */
export function cliHarnessOptions(
  env: NodeJS.ProcessEnv,
  o: { warm?: boolean } & Pick<HarnessOptions, 'onRecordingDelay' | 'onRecordingError' | 'store'> = {},
): HarnessOptions {
  const { warm, store, ...recording } = o;
  // The store: `--store` (serve), else $TALARIA_STORE, else config.json's, else the home's file.
  const where = store ?? (env.TALARIA_STORE || undefined);
  // How long a store write waits for another process's lock (tests of an outage shorten it).
  const busy = Number(env.TALARIA_STORE_BUSY_MS);
  return {
    env: currentEnv({ env, homeDir: env.HOME || homedir() }),
    ...(warm ? {} : { warm: false }),
    ...(where !== undefined ? { store: where } : {}),
    // On a fleet's store: this machine's host (its workspaces are its own; docs/fleet.md §2).
    fleetHostId: (home) => hostIdentity(home).id,
    ...(env.TALARIA_STORE_BUSY_MS && Number.isFinite(busy) && busy >= 0 ? { storeBusyTimeoutMs: busy } : {}),
    ...recording,
  };
}

export function agentLabel(
  info: { title?: string; name?: string; version?: string } | undefined,
  fallback: string,
): string {
  const name = info?.title ?? info?.name;
  if (!name) return fallback;
  return info?.version ? `${name} ${info.version}` : name;
}

/**
 * Why a command is not an ACP agent, when what it did before initialize failed says so: it
 * answered `initialize` with "Method not found" (`cat` echoes the request back), or it wrote
 * lines that are not JSON-RPC on stdout.
 */
function notAcp(err: unknown, seen: readonly ProtocolErrorEvent[]): string | undefined {
  if (err instanceof RequestError && err.code === RPC.METHOD_NOT_FOUND)
    return 'it answered initialize with "Method not found"';
  const garbage = seen.find((e) => e.kind === 'non_json' || e.kind === 'invalid_jsonrpc');
  if (garbage) return `it wrote "${garbage.preview.slice(0, 60)}" on stdout, which is not JSON-RPC`;
  return undefined;
}

const ACP_HINT = 'pass the command that starts its ACP mode (for example "hermes acp", "gemini --experimental-acp")';

function failure(err: unknown, spawned: boolean, what: string, seen: readonly ProtocolErrorEvent[] = []): RuntimeError {
  if (err instanceof RuntimeError) return err;
  if (err instanceof TalariaError && err.code === 'session_not_found')
    return new RuntimeError('session_not_found', err.message);
  if (err instanceof TalariaError && err.code === 'spawn_failed') return new RuntimeError('spawn_failed', err.message);
  // A stored session whose agent is not configured here.
  if (err instanceof TalariaError && err.code === 'invalid_argument')
    return new RuntimeError('not_configured', err.message);
  const details = ((err as TalariaError)?.details ?? {}) as FailureDetails;
  if (!spawned || err instanceof ConnectionClosedError) {
    const why = notAcp(err, seen);
    if (why)
      return new RuntimeError(
        'not_acp',
        formatAgentFailure(`${what} does not speak ACP: ${why}; ${ACP_HINT}`, details),
      );
    return new RuntimeError(
      'initialize_failed',
      formatAgentFailure(`${what} did not initialize: ${describeError(err).message}`, details),
    );
  }
  return new RuntimeError('session_failed', `${what}: ${describeError(err).message}`);
}

export function createHarnessRuntime(
  env: NodeJS.ProcessEnv = process.env,
  make: (o: HarnessOptions) => CliHarness = createHarness,
  runtime: { warm?: boolean } = {},
): AgentRuntime {
  let harness: CliHarness | undefined;
  let opened: HarnessSession | undefined;
  let closing: Promise<void> | undefined;
  return {
    async open(o) {
      if (o.agent !== undefined && o.agentCmd !== undefined)
        throw new UsageError('pass either --agent or --agent-cmd, not both');
      const words = o.agentCmd !== undefined ? splitCommand(o.agentCmd) : undefined;
      if (words && words.length === 0) throw new UsageError('--agent-cmd is empty');
      const c = o.client ?? {};
      // Bad lines before the session exists are held, then delivered after its state (as a bare client would report them).
      const heldProtocol: SessionEvent[] = [];
      const seen: ProtocolErrorEvent[] = [];
      let emitProtocol: (e: SessionEvent) => void = (e) => void (heldProtocol.length < 100 && heldProtocol.push(e));
      try {
        harness = make({
          ...cliHarnessOptions(env, runtime),
          ...(c.logger ? { logger: c.logger } : {}),
          host: {
            ...(c.setupTimeoutMs !== undefined ? { setupTimeoutMs: c.setupTimeoutMs } : {}),
            ...(c.permission ? { permission: c.permission } : {}),
          },
          ...(c.onFrame ? { onFrame: (_k: AgentKey, f: Frame) => c.onFrame!(f) } : {}),
          // A connection's bad lines belong to no session ('*'), as with a bare AcpClient.
          onProtocolError: (_k, e) => {
            if (seen.length < 5) seen.push(e);
            emitProtocol({ type: 'protocol.error', sessionId: '*', seq: 0, at: Date.now(), ...e } as SessionEvent);
          },
        });
      } catch (err) {
        // A store problem goes out as it is: the faces print its line (setupFailure) and exit 6.
        if (isStoreProblem(err)) throw err;
        throw new RuntimeError('store_failed', `cannot open Talaria's home: ${(err as Error).message}`);
      }
      const h = harness;
      // Which agent: --agent-cmd, --agent, the stored session's, or the workspace's pick.
      let provider: string | undefined;
      let banner: string | undefined;
      if (words && o.agentCmd !== undefined) {
        provider = h.commandAgent(words[0]!, words.slice(1), o.agentCmd.trim()).id;
      } else if (o.agentUrl !== undefined) {
        provider = urlAgent(h, o.agentUrl, env);
      } else if (o.agent !== undefined) {
        if (!h.registry.has(o.agent)) {
          const known = h.registry
            .list()
            .map((p) => p.id)
            .join(', ');
          throw new RuntimeError(
            'unknown_agent',
            `unknown agent '${o.agent}' (known: ${known}); pass --agent-cmd "COMMAND ARGS" to run any ACP agent`,
          );
        }
        provider = o.agent;
        if (provider === 'demo') banner = DEMO_NOTE;
      } else if (o.sessionId === undefined || !h.sessions.find(o.sessionId)) {
        o.onProgress?.('Looking for a ready agent…');
        const pick = await h.pickAgent({ workspace: o.cwd, ...(o.profile ? { profile: o.profile } : {}) });
        provider = pick.provider;
        if (pick.from === 'fallback') banner = DEMO_BANNER;
        else if (provider === 'demo') banner = DEMO_NOTE;
      }
      const stored = o.sessionId !== undefined ? h.sessions.find(o.sessionId) : undefined;
      const providerId = stored?.provider ?? provider!;
      const p = h.registry.get(providerId);
      const label = p?.label ?? providerId;
      const profile = stored?.profile ?? o.profile;

      let spawned = false;
      let name = label;
      const offHost = h.host.subscribe((e) => {
        if (e.type !== 'agent.spawned' || e.key.provider !== providerId) return;
        spawned = true;
        name = agentLabel(h.connectionInfo(e.key)?.agentInfo, label);
        o.onProgress?.(o.sessionId ? `Loading session ${o.sessionId} on ${name}…` : `Opening a session on ${name}…`);
      });
      const aborted = new Promise<never>((_, reject) => {
        const fail = () =>
          reject(
            new RuntimeError(
              'aborted',
              spawned ? 'cancelled while the session was opening' : 'cancelled while the agent was starting',
            ),
          );
        if (o.signal?.aborted) fail();
        else o.signal?.addEventListener('abort', fail, { once: true });
      });
      aborted.catch(() => undefined);
      o.onProgress?.(`Starting ${label}…`);
      const ws = h.workspaces.open(o.cwd);
      const opts = { ...(provider ? { provider } : {}), ...(profile ? { profile } : {}) };
      const opening =
        o.sessionId !== undefined
          ? ws.openSession(o.sessionId, opts)
          : ws.newSession({ ...opts, ...(o.createdBy ? { createdBy: o.createdBy } : {}) });
      opening.catch(() => undefined);
      let hs: HarnessSession;
      try {
        hs = await Promise.race([opening, aborted]);
      } catch (err) {
        // Recording the session failed in the store, not at the agent: the store's own line (setupFailure).
        if (isStoreProblem(err)) throw err;
        const f = failure(
          err,
          spawned,
          o.sessionId ? `could not load session ${o.sessionId}` : spawned ? 'could not open a session' : label,
          seen,
        );
        // The agent wants a sign-in: say the command that runs it (an agent by command or URL has no id to log in with);
        // `signIn` lets a chat on a terminal offer it in place (cli/chat/sign-in.ts).
        if (describeError(err).code === 'auth_required' && !providerId.includes(':')) {
          throw new RuntimeError(f.code, `${f.message}\nSign in with: talaria login ${providerId}`, {
            reason: f.message,
            signIn: { provider: providerId, ...(profile ? { profile } : {}) },
          });
        }
        throw f;
      } finally {
        offHost();
      }
      opened = hs;
      const key = h.host.targetOf(hs.session);
      const info = key ? h.connectionInfo(key) : undefined;
      if (o.onEvent) {
        for (const e of stateEvents(hs.session)) o.onEvent(e);
        hs.subscribe(o.onEvent);
        for (const e of heldProtocol.splice(0)) o.onEvent(e);
        emitProtocol = o.onEvent;
      }
      const died = new Promise<unknown>((resolve) => {
        const off = h.host.subscribe((e) => {
          if (
            e.type === 'agent.exited' &&
            key &&
            e.key.provider === key.provider &&
            e.key.workspace === key.workspace &&
            (e.reason === 'crashed' || e.reason === 'stalled')
          ) {
            off();
            resolve(e);
          }
        });
      });
      const caps = (info?.agentCapabilities?.sessionCapabilities ?? {}) as Record<string, unknown>;
      return {
        client: {
          capabilities: { supportsSession: (f) => typeof caps[f] === 'object' && caps[f] !== null },
          closed: died,
          sessions: () =>
            h.workspaces
              .open(hs.workspace)
              .sessions({ agent: { provider: hs.provider, ...(hs.profile ? { profile: hs.profile } : {}) } }),
        },
        session: hs.session,
        label: agentLabel(info?.agentInfo, label),
        isDemo: hs.provider === 'demo',
        ...(hs.provider.includes(':')
          ? {}
          : { signIn: { provider: hs.provider, ...(hs.profile ? { profile: hs.profile } : {}) } }),
        ...(banner ? { banner } : {}),
        talariaId: hs.id,
        origin: hs.origin,
        historyFrom: hs.historyFrom,
        setModel: (m) => hs.setModel(m),
        setMode: (m) => hs.setMode(m),
        recordingFailure: () => {
          const e = hs.recording.error;
          return e ? (isStoreProblem(e.cause) ? (e.cause as Error) : e) : stillHeld(hs.id, hs.recording);
        },
        cost: () => {
          const row = h.store.closed ? undefined : h.sessions.get(hs.id);
          const u = row ? sessionUsage(h.store, h.env, [row]).sessions[0] : undefined;
          if (!u || (u.from !== 'hermes-state-db' && u.cost.status === 'unknown')) return undefined;
          return formatCost(u.cost);
        },
        setDefault: (kind, id) =>
          h.workspaces
            .open(hs.workspace)
            .setDefault({ provider: hs.provider, ...(hs.profile ? { profile: hs.profile } : {}), kind, id }),
      };
    },
    close(opts = {}) {
      if (opts.force) harness?.host.killAllSync();
      closing ??= (async () => {
        if (!harness) return;
        // A new session nobody prompted (`talaria models`, a chat left at once) stays out of the listings.
        if (opened?.origin === 'new' && !harness.store.closed) {
          opened.flush();
          if (harness.sessions.turns(opened.id).length === 0) harness.sessions.archive(opened.id);
        }
        await harness.close();
      })();
      return closing;
    },
  };
}
