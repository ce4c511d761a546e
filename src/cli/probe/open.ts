/**
 * Getting to a session: spawn + initialize, then session/new with the probe's MCP server (once
 * more without it when the agent refuses it). Failures come back as a not-ready message with
 * the agent's exit and stderr tail, never as a throw.
 */
import { TalariaError } from '../../protocol/errors.js';
import { startWithQuirks, summarize, type QuirkSummary } from '../../providers/index.js';
import { AcpClient, type ClientOptions } from '../../session/client.js';
import type { Session } from '../../session/session.js';
import { formatAgentFailure, type FailureDetails } from '../failure.js';
import { codedErrorText, type ProbeWorkspace } from './context.js';
import type { Recorder } from './recorder.js';
import { MARKER_VAR, type ProbeLaunch, type ProbeOptions } from './types.js';

const isTimeout = (err: unknown): boolean => err instanceof TalariaError && err.code === 'timeout';

export function notReadyMessage(what: string, err: unknown): string {
  const details = ((err as TalariaError)?.details ?? {}) as FailureDetails;
  // A timeout's own message only repeats what `what` already says.
  return formatAgentFailure(isTimeout(err) ? what : `${what}: ${codedErrorText(err)}`, details);
}

export async function startAgent(
  o: Pick<ProbeOptions, 'logger'> & {
    launch: ProbeLaunch;
    timeoutMs: number;
    ws: ProbeWorkspace;
    marker: string;
    rec: Recorder;
  },
): Promise<{ client: AcpClient; quirks: QuirkSummary & { restartedFrom?: string } } | { notReady: string }> {
  const { launch, rec } = o;
  const opts: ClientOptions = {
    setupTimeoutMs: o.timeoutMs,
    onFrame: rec.onFrame,
    onProtocolError: rec.onProtocolError,
    // The probe answers every permission itself (allow once); the broker must not time out first.
    permission: { mode: 'ask', timeoutMs: 0 },
    clientInfo: { name: 'talaria-probe', title: 'Talaria probe', version: '1' },
    ...(o.logger ? { logger: o.logger } : {}),
  };
  try {
    const env = { ...launch.env, [MARKER_VAR]: o.marker };
    // The agent's quirk set (hooks, client capabilities) follows what it says in initialize,
    // whether it was named by id or given as a command.
    const started = await startWithQuirks({
      ...(launch.provider ? { provider: launch.provider } : {}),
      command: launch.command,
      args: launch.args,
      hookOptions: launch.hookEnv ? { env: launch.hookEnv } : {},
      spawn: (caps) =>
        AcpClient.spawn(
          { command: launch.command, args: launch.args, cwd: o.ws.cwd, env, inherit: launch.inherit },
          { ...opts, ...caps },
        ),
    });
    const quirks = {
      ...summarize(started.quirks.choice),
      ...(started.restartedFrom ? { restartedFrom: started.restartedFrom.choice.set.id } : {}),
    };
    return { client: started.client, quirks };
  } catch (err) {
    const what = isTimeout(err)
      ? `the agent did not answer initialize within ${o.timeoutMs} ms`
      : `${launch.label} could not be started or initialized`;
    return { notReady: notReadyMessage(what, err) };
  }
}

export type Opened =
  { session: Session; mcpRefused?: string; from: number; started: number } | { notReady: string; fatal: boolean };

export async function openSession(
  client: AcpClient,
  o: { ws: ProbeWorkspace; mcpServer: Record<string, unknown>; timeoutMs: number; rec: Recorder },
): Promise<Opened> {
  const { rec } = o;
  let from = rec.mark();
  let started = rec.now();
  try {
    return { session: await client.newSession({ cwd: o.ws.cwd, mcpServers: [o.mcpServer] }), from, started };
  } catch (err) {
    if (client.connection.isClosed || isTimeout(err)) {
      return {
        notReady: notReadyMessage(
          isTimeout(err) ? `session/new did not answer within ${o.timeoutMs} ms` : 'session/new failed',
          err,
        ),
        fatal: true,
      };
    }
    from = rec.mark();
    started = rec.now();
    try {
      return { session: await client.newSession({ cwd: o.ws.cwd }), mcpRefused: codedErrorText(err), from, started };
    } catch (err2) {
      return { notReady: notReadyMessage('session/new failed', err2), fatal: client.connection.isClosed };
    }
  }
}

/** Allow once whatever the agent asks during the probe (it works in a scratch folder). */
export function answerPermissions(client: AcpClient): void {
  client.subscribe((e) => {
    if (e.type !== 'permission.asked') return;
    queueMicrotask(() => {
      const s = client.sessions.get(e.sessionId);
      const done = s?.answerPermission(e.requestKey, { choice: 'allow_once' }, 'probe');
      // No allow option offered: pick what the agent offered rather than leave it waiting.
      const first = (e.options[0] as { optionId?: unknown } | undefined)?.optionId;
      if (done && !done.ok && done.reason === 'not_offered') {
        s?.answerPermission(
          e.requestKey,
          typeof first === 'string' ? { optionId: first } : { choice: 'reject_once' },
          'probe',
        );
      }
    });
  });
}
