/**
 * The Talaria demo agent: a deterministic, offline ACP agent built on the official SDK's
 * agent side. It is the embedded default (a new user sees everything work with no agent
 * installed) and a test peer for the whole project. It imports nothing from src/ but
 * protocol/errors.ts, because it is a separate program.
 */
import { isAbsolute, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { RPC } from '../protocol/errors.js';
import {
  COMMANDS,
  configOptions,
  DEFAULT_TIMING,
  DEMO_AGENT_NAME,
  DEMO_AGENT_TITLE,
  DEMO_CONTEXT_SIZE,
  DEMO_MODELS,
  DEMO_MODES,
  defaultDemoHome,
  packageVersion,
  type DemoAgentOptions,
} from './config.js';
import { decodeCursor, encodeCursor, SessionStore, type StoredSession } from './store.js';
import { runTurn, type Live, type TurnEnv } from './turn.js';
import type { DemoTiming } from './turn-io.js';

export * from './config.js';

export interface DemoAgent {
  readonly connection: acp.AgentConnection;
  /** Resolves once the connection closed and every running turn has unwound. */
  readonly closed: Promise<void>;
  close(): void;
}

export function createDemoAgent(options: DemoAgentOptions): DemoAgent {
  const log = options.log ?? ((): void => undefined);
  const store = new SessionStore(options.home ?? defaultDemoHome());
  const timing: DemoTiming = { ...DEFAULT_TIMING, ...options.timing };
  const pageSize = options.pageSize ?? 50;
  const graceMs = options.permissionGraceMs ?? 2000;
  const version = options.version ?? packageVersion();
  const live = new Map<string, Live>();

  const getLive = (sessionId: string): Live => {
    const s = live.get(sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  };
  const save = (s: Live): void => {
    s.data.updatedAt = new Date().toISOString();
    store.save(s.data);
  };

  /** Commands and usage go out right after the new/load response, as agents do. */
  const afterResponse = (client: acp.AgentContext, s: Live): void => {
    setImmediate(() => {
      const sessionId = s.data.sessionId;
      const u = acp.methods.client.session.update;
      void client
        .notify(u, { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: COMMANDS } })
        .then(() =>
          client.notify(u, {
            sessionId,
            update: { sessionUpdate: 'usage_update', used: s.data.usedTokens, size: DEMO_CONTEXT_SIZE },
          }),
        )
        .catch(() => undefined);
    });
  };

  const env: TurnEnv = { timing, graceMs, log, save };

  const app = acp
    .agent({ name: DEMO_AGENT_NAME })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: 1,
      agentInfo: { name: DEMO_AGENT_NAME, title: DEMO_AGENT_TITLE, version },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        sessionCapabilities: { list: {}, close: {} },
      },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, ({ params, client }) => {
      if (!isAbsolute(params.cwd))
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const now = new Date().toISOString();
      const data: StoredSession = {
        version: 1,
        sessionId: crypto.randomUUID(),
        cwd: params.cwd,
        title: null,
        createdAt: now,
        updatedAt: now,
        turns: 0,
        model: 'demo-fast',
        mode: 'ask',
        usedTokens: 0,
        history: [],
      };
      const s: Live = { data, turn: null, always: new Set() };
      live.set(data.sessionId, s);
      store.save(data);
      log(`session/new ${data.sessionId} in ${data.cwd}`);
      afterResponse(client, s);
      return { sessionId: data.sessionId, configOptions: configOptions(data) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      if (!isAbsolute(params.cwd))
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const data = live.get(params.sessionId)?.data ?? store.load(params.sessionId);
      if (!data) throw acp.RequestError.sessionNotFound(params.sessionId);
      const s: Live = live.get(params.sessionId) ?? { data, turn: null, always: new Set() };
      data.cwd = params.cwd;
      live.set(data.sessionId, s);
      // ACP: replay the whole history as notifications before answering.
      for (const update of data.history) {
        await client.notify(acp.methods.client.session.update, { sessionId: data.sessionId, update });
      }
      save(s);
      log(`session/load ${data.sessionId}: replayed ${data.history.length} updates`);
      afterResponse(client, s);
      return { configOptions: configOptions(data) };
    })
    .onRequest(acp.methods.agent.session.list, ({ params }) => {
      const cwd = params.cwd ? resolve(params.cwd) : null;
      const all = store.all().filter((d) => cwd === null || resolve(d.cwd) === cwd);
      const offset = params.cursor ? decodeCursor(params.cursor) : 0;
      if (offset === null) throw acp.RequestError.invalidParams({ cursor: params.cursor }, 'unknown cursor');
      const page = all.slice(offset, offset + pageSize);
      const sessions: acp.SessionInfo[] = page.map((d) => ({
        sessionId: d.sessionId,
        cwd: d.cwd,
        title: d.title,
        updatedAt: d.updatedAt,
      }));
      return offset + pageSize < all.length ? { sessions, nextCursor: encodeCursor(offset + pageSize) } : { sessions };
    })
    .onRequest(acp.methods.agent.session.close, ({ params }) => {
      const s = live.get(params.sessionId);
      s?.turn?.ac.abort();
      live.delete(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
      const s = getLive(params.sessionId);
      const allowed: readonly string[] | undefined =
        params.configId === 'model' ? DEMO_MODELS : params.configId === 'mode' ? DEMO_MODES : undefined;
      if (!allowed) throw acp.RequestError.invalidParams({ configId: params.configId }, 'unknown config option');
      const value = params.value;
      if (typeof value !== 'string' || !allowed.includes(value)) {
        throw acp.RequestError.invalidParams({ configId: params.configId, value, allowed }, 'unknown value');
      }
      if (params.configId === 'model') s.data.model = value;
      else s.data.mode = value;
      save(s);
      return { configOptions: configOptions(s.data) };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const s = getLive(params.sessionId);
      // ACP has no steering: a second prompt while a turn runs is refused; clients queue.
      if (s.turn) {
        throw new acp.RequestError(RPC.INTERNAL_ERROR, 'Session is busy', {
          details: 'A prompt is already running in this session; wait for it to end (or cancel it) and send again.',
          sessionId: params.sessionId,
        });
      }
      const ac = new AbortController();
      const done = runTurn(env, client, s, params, ac);
      s.turn = { ac, done: done.catch(() => undefined) };
      try {
        return await done;
      } finally {
        s.turn = null;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      // Never throw here: the SDK would log notification errors to stderr.
      const turn = live.get(params.sessionId)?.turn;
      if (turn) log(`session/cancel ${params.sessionId}`);
      turn?.ac.abort();
    });

  const connection = app.connect(options.stream);
  const closed = connection.closed.then(async () => {
    const turns = [...live.values()].flatMap((s) => (s.turn ? [s.turn] : []));
    for (const t of turns) t.ac.abort();
    await Promise.allSettled(turns.map((t) => t.done));
  });
  return { connection, closed, close: () => connection.close() };
}
