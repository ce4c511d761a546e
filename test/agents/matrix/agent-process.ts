/** Starts one real agent process offline, through Talaria's AcpClient, with its wire log recorded. */
import { AcpClient } from '../../../src/session/client.js';
import type { SessionEvent } from '../../../src/session/events.js';
import type { Logger } from '../../../src/protocol/types.js';
import { offlineEnv } from '../profiles/env.js';
import type { AgentProfile } from '../profiles/types.js';
import { Recorder } from './recorder.js';
import { matrixRules, type Workspace } from './workspace.js';

export interface AgentProcess {
  client?: AcpClient;
  rec: Recorder;
  /** spawn → initialize answered. */
  initMs: number;
  initError?: unknown;
  /** Permission requests the policy left to a person (answered reject by the runner). */
  asked: Extract<SessionEvent, { type: 'permission.asked' }>[];
  decided: Extract<SessionEvent, { type: 'permission.decided' }>[];
  stderrTail(): string;
  close(): Promise<void>;
}

const stderrLogger = (agent: string): Logger => {
  const on = process.env.MATRIX_DEBUG === '1';
  const w = (lvl: string) => (msg: string, data?: Record<string, unknown>) => {
    if (on) process.stderr.write(`[${agent}] ${lvl} ${msg} ${data ? JSON.stringify(data).slice(0, 400) : ''}\n`);
  };
  return { debug: w('debug'), info: w('info'), warn: w('warn'), error: w('error') };
};

export async function startAgent(
  profile: AgentProfile,
  o: { ws: Workspace; installDir: string; modelUrl: string; credentials: boolean; label: string },
): Promise<AgentProcess> {
  const { home, tmp } = o.ws.freshHome(o.label);
  const lctx = { installDir: o.installDir, home, tmp, cwd: o.ws.cwd, modelUrl: o.modelUrl, credentials: o.credentials };
  const launch = await profile.launch(lctx);
  const hooks = typeof profile.hooks === 'function' ? profile.hooks(lctx) : profile.hooks;
  const env = offlineEnv({ home, tmp, installDir: o.installDir, extra: launch.env });
  const terminalEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const rec = new Recorder();
  const asked: AgentProcess['asked'] = [];
  const decided: AgentProcess['decided'] = [];
  const t0 = performance.now();
  let client: AcpClient | undefined;
  let initError: unknown;
  try {
    client = await AcpClient.spawn(
      { command: launch.command, args: launch.args, cwd: o.ws.cwd, env },
      {
        logger: stderrLogger(profile.name),
        ...(hooks ? { hooks } : {}),
        ...(profile.fs !== undefined ? { fs: profile.fs } : {}),
        ...(profile.terminal !== undefined ? { terminal: profile.terminal } : {}),
        ...(profile.clientCapabilityOverrides ? { clientCapabilityOverrides: profile.clientCapabilityOverrides } : {}),
        terminalEnv,
        permission: { mode: 'ask', rules: matrixRules(o.ws.cwd), timeoutMs: 60_000 },
        onFrame: rec.onFrame,
        setupTimeoutMs: profile.initTimeoutMs ?? 60_000,
      },
    );
  } catch (err) {
    initError = err;
  }
  const initMs = Math.round(performance.now() - t0);
  client?.subscribe((e) => {
    if (e.type === 'permission.asked') {
      asked.push(e);
      // Nobody is at the keyboard: a request the policy did not settle is refused (and the cell fails).
      void client?.sessions.get(e.sessionId)?.answerPermission(e.requestKey, { choice: 'reject_once' }, 'matrix');
    } else if (e.type === 'permission.decided') decided.push(e);
  });
  return {
    ...(client ? { client } : {}),
    rec,
    initMs,
    ...(initError !== undefined ? { initError } : {}),
    asked,
    decided,
    stderrTail: () => client?.connection.process?.stderrTail(1500) ?? '',
    close: async () => {
      await client?.close();
    },
  };
}
