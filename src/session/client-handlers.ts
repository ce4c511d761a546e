/**
 * The agent's requests a connection answers itself: permission (through the session's broker),
 * fs/* and terminal/* (confined to the session's roots, authorized by the same policy), and
 * where the others go; and the port a session sends its own requests through.
 */
import type { AgentConnection, ClientHandlers } from '../protocol/connection.js';
import { createFsHandlers } from '../protocol/client-fs.js';
import { createTerminalManager, type TerminalManager, type TerminalView } from '../protocol/client-terminal.js';
import type { Logger } from '../protocol/types.js';
import type { PermissionBroker } from '../permission/broker.js';
import { buildChildEnv } from '../os/env.js';
import { createEffectAuthorizer } from './effects.js';
import { notFound } from './other-requests.js';
import type { ClientOptions } from './client-options.js';
import type { Session, SessionPort } from './session.js';

export function agentRequestHandlers(o: {
  lookup: (sessionId: string) => Session | undefined;
  broker: PermissionBroker;
  logger: Logger;
  opts: Pick<ClientOptions, 'fs' | 'terminal' | 'terminalEnv'>;
}): { handlers: ClientHandlers; terminals: TerminalManager | undefined } {
  const { lookup, broker, logger, opts } = o;
  const rootsFor = (sessionId: string) => lookup(sessionId)?.roots;
  // fs/* and terminal/create pass the same policy + broker as permission requests.
  const authorize = createEffectAuthorizer({ broker, lookup });
  const handlers: ClientHandlers = {
    requestPermission: (params: { sessionId: string }, ctx: { requestId: string | number }) => {
      const s = lookup(params.sessionId);
      // Never leave an agent waiting: an unknown session gets `cancelled`, which every agent treats as deny.
      if (!s) return Promise.resolve({ outcome: { outcome: 'cancelled' as const } });
      return s.requestPermission(params as never, ctx.requestId).then((outcome) => ({ outcome }));
    },
  } as ClientHandlers;
  const fs = opts.fs ?? true;
  const fsRead = fs === true || (typeof fs === 'object' && fs.read !== false);
  const fsWrite = fs === true || (typeof fs === 'object' && fs.write !== false);
  if (fsRead || fsWrite) {
    const f = createFsHandlers({ rootsFor, logger, authorize });
    if (fsRead) handlers.readTextFile = f.readTextFile;
    if (fsWrite) handlers.writeTextFile = f.writeTextFile;
  }
  let terminals: TerminalManager | undefined;
  if (opts.terminal ?? true) {
    const env = opts.terminalEnv ?? buildChildEnv(process.env);
    terminals = createTerminalManager({ rootsFor, env: () => env, logger, authorize });
    handlers.terminal = terminals;
  }
  return { handlers, terminals };
}

/**
 * An agent request no handler here takes: to its session's taker (the editor of `talaria acp`);
 * one naming no session goes to the first session that has a taker. Else -32601.
 */
export function otherRequest(
  sessions: ReadonlyMap<string, Session>,
  method: string,
  params: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const sid = (params as { sessionId?: unknown } | null | undefined)?.sessionId;
  const s = typeof sid === 'string' ? sessions.get(sid) : [...sessions.values()].find((x) => x.otherRequests.taken);
  return s ? s.otherRequests.handle(method, params, signal) : Promise.reject(notFound(method));
}

/** What a session of this connection uses of it. */
export function sessionPort(
  connection: AgentConnection,
  terminal: (sessionId: string, terminalId: string) => TerminalView | undefined,
): SessionPort {
  const caps = connection.capabilities;
  return {
    request: (method, params, o) => connection.request(method, params, o),
    notify: (method, params) => connection.notify(method, params),
    promptCaps: { image: caps.promptImage, audio: caps.promptAudio, embeddedContext: caps.promptEmbeddedContext },
    authMethods: () => caps.authMethods,
    terminal,
  };
}
