/**
 * Terminal sign-in from the web (issue 13): the WebSocket of contract/auth.ts PTY_*. The method
 * is resolved as `talaria login` does (sign-in.ts: ACP `type: terminal` or `_meta` terminal-auth),
 * its command runs in a pty (pty-process.ts), bytes go both ways, and when it ends readiness is
 * checked for real and sent. One sign-in per agent at a time; the command dies with its socket
 * and with the server.
 */
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Harness } from '../harness/index.js';
import type { Logger } from '../protocol/types.js';
import { missingSignInTool, recheckSignIn, startForSignIn, terminalCommand } from '../providers/sign-in.js';
import type { Provider } from '../providers/types.js';
import { errorText } from '../session/errors.js';
import { PTY_PATH, ptyClientMessage, ptyQuery, type PtyServerMessage } from './contract/index.js';
import { signInInfo } from './provider-info.js';
import { spawnPty, type PtyProcess } from './pty-process.js';
import type { TokenIdentity } from './tokens.js';

const TIMEOUT_MS = 30_000;

export interface PtyChannel {
  /** The agent id when `path` is a pty sign-in path. */
  match(path: string): string | undefined;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, identity: TokenIdentity): void;
  /** Agents with a sign-in running (tests). */
  running(): string[];
  /** Kills every running sign-in command and closes its socket. */
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, code: string, message: string, fix?: string): void {
  const body = JSON.stringify({ code, message, ...(fix ? { fix } : {}) });
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

interface Run {
  ws?: WebSocket;
  pty?: PtyProcess;
  done: Promise<void>;
}

export function ptyChannel(o: { harness: Harness; logger: Logger; onSignedIn: () => void }): PtyChannel {
  const { harness, logger } = o;
  const runs = new Map<string, Run>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 256 * 1024,
    perMessageDeflate: false,
    handleProtocols: (p) => (p.has('talaria') ? 'talaria' : false),
  });

  async function run(
    ws: WebSocket,
    r: Run,
    provider: Provider,
    q: { method: string; cols?: number | undefined; rows?: number | undefined },
  ): Promise<void> {
    const send = (m: PtyServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    const fail = (code: string, message: string, fix?: string) => {
      send({ type: 'error', code, message, ...(fix ? { fix } : {}) });
      ws.close(1000);
    };
    let closed = false;
    ws.on('close', () => {
      closed = true;
      r.pty?.kill();
    });
    let agent;
    try {
      // The agent starts in a neutral folder: signing in belongs to no workspace.
      agent = await startForSignIn(provider, harness.env, { cwd: tmpdir(), timeoutMs: TIMEOUT_MS });
    } catch (e) {
      return fail('not_ready', `${provider.label} could not be started: ${errorText(e)}`);
    }
    let command: ReturnType<typeof terminalCommand> | undefined;
    let refusal: [message: string, fix: string] | undefined;
    try {
      const m = agent.methods.find((x) => x.id === q.method);
      if (!m)
        refusal = [
          `${provider.label} has no sign-in method '${q.method}'`,
          `It lists: ${agent.methods.map((x) => x.id).join(', ') || 'none'}.`,
        ];
      else if (m.kind === 'agent')
        refusal = [
          `${m.id} is not a terminal sign-in`,
          `POST /api/agents/${provider.id}/login {"methodId":"${m.id}"} runs it.`,
        ];
      else if (m.kind === 'env_var')
        refusal = [
          `${m.id} is a variable to set, not a sign-in to run`,
          `Put ${(m.vars ?? []).join(' or ')} in agents.${JSON.stringify(provider.id)}.env of config.json.`,
        ];
      else {
        command = terminalCommand(provider, harness.env, agent, m.id);
        const missing = missingSignInTool(command.command, harness.env);
        if (missing) refusal = [missing.message, missing.fix];
      }
    } finally {
      // The agent is not needed while its sign-in command runs (it may even lock what that command writes).
      await agent.client.close().catch(() => {});
    }
    // Refused only now, the agent closed: a retry right after the answer finds it free.
    if (refusal || !command)
      return fail(refusal && command ? 'not_ready' : 'invalid_argument', ...(refusal ?? ['no sign-in command', '']));
    if (closed) return;
    let pty: PtyProcess;
    try {
      pty = spawnPty(command.command, command.args, {
        env: command.env,
        cwd: tmpdir(),
        ...(q.cols && q.rows ? { cols: q.cols, rows: q.rows } : {}),
      });
    } catch (e) {
      return fail(
        'unsupported',
        `the sign-in command could not be started: ${errorText(e)}`,
        `Run \`talaria login ${provider.id} ${q.method}\` in a terminal.`,
      );
    }
    r.pty = pty;
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      pty.onExit((code, signal) => resolve({ code, signal })),
    );
    pty.onData((chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      let parsed: unknown;
      try {
        parsed = isBinary ? undefined : JSON.parse(data.toString());
      } catch {
        parsed = undefined;
      }
      const m = ptyClientMessage.safeParse(parsed);
      if (!m.success) return; // A bad frame is dropped: the terminal keeps working.
      if (m.data.type === 'input') pty.write(m.data.data);
      else pty.resize(m.data.cols, m.data.rows).catch(() => undefined);
    });
    send({ type: 'started', methodId: q.method, command: [command.command, ...command.args], pid: pty.pid });
    if (closed) pty.kill();
    const { code, signal } = await ended;
    if (closed) return;
    send({ type: 'exit', code, signal });
    // Readiness for real, whatever the exit code said (a command may save the key and still exit 1).
    const checked = await recheckSignIn(provider, harness.env, { home: harness.home, timeoutMs: TIMEOUT_MS });
    o.onSignedIn();
    send({ type: 'result', ok: checked.ready === true, provider: signInInfo(provider, checked) });
    ws.close(1000);
  }

  return {
    match(path) {
      const m = PTY_PATH.exec(path);
      if (!m) return undefined;
      try {
        return decodeURIComponent(m[1]!);
      } catch {
        return undefined;
      }
    },
    upgrade(req, socket, head, identity) {
      const id = this.match((req.url ?? '/').split('?')[0]!)!;
      if (identity.role !== 'controller')
        return refuse(
          socket,
          403,
          'forbidden',
          `this token is an ${identity.role}: it can look, not act`,
          'Ask for a controller link.',
        );
      const provider = harness.registry.get(id);
      if (!provider)
        return refuse(socket, 404, 'not_found', `no agent '${id}'`, 'GET /api/providers lists the agents.');
      const q = ptyQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams));
      if (!q.success)
        return refuse(
          socket,
          400,
          'invalid_body',
          `invalid query: ${q.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      if (runs.has(id))
        return refuse(
          socket,
          409,
          'conflict',
          `a sign-in to ${provider.label} is already running`,
          'Finish or close the other terminal first.',
        );
      wss.handleUpgrade(req, socket, head, (ws) => {
        // Taken here, not before: a handshake ws refuses never reaches this, and must not hold the agent.
        if (runs.has(id)) return ws.close(4409, 'a sign-in is already running');
        const r: Run = { ws, done: Promise.resolve() };
        runs.set(id, r);
        r.done = run(ws, r, provider, q.data)
          .catch((e: unknown) => {
            logger.error('serve: a terminal sign-in failed', { provider: id, error: errorText(e) });
            if (ws.readyState === ws.OPEN)
              ws.send(
                JSON.stringify({
                  type: 'error',
                  code: 'internal',
                  message: `the sign-in failed: ${errorText(e)}`,
                } satisfies PtyServerMessage),
              );
            ws.close(1011);
          })
          // The agent is free for another sign-in once its command is gone, not merely its socket.
          .finally(() => (r.pty && !r.pty.exited ? new Promise<void>((res) => r.pty!.onExit(() => res())) : undefined))
          .finally(() => runs.delete(id));
      });
    },
    running: () => [...runs.keys()],
    async close() {
      for (const r of runs.values()) {
        r.pty?.kill(200);
        r.ws?.close(1001, 'server stopping');
      }
      await Promise.allSettled([...runs.values()].map((r) => r.done));
      wss.close();
    },
  };
}
