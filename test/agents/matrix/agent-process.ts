/**
 * One real agent through Talaria's library face (createHarness, as the CLI uses it): started by
 * built-in id or by `commandAgent()` with its own command line, every frame recorded. The policy
 * (matrixRules) answers permission requests; one the policy leaves to a person is refused and
 * recorded (nobody is at the keyboard), which fails the cell.
 */
import { createHarness, type Harness, type HarnessExtras, type HarnessSession } from '../../../src/harness/index.js';
import type { HostEvent } from '../../../src/host/events.js';
import { currentEnv } from '../../../src/providers/locate.js';
import type { Logger } from '../../../src/protocol/types.js';
import type { SessionEvent } from '../../../src/session/events.js';
import type { AgentProfile } from '../profiles/types.js';
import { Recorder } from './recorder.js';
import { setupRow, viaProxy, type By, type Row } from './row.js';
import { matrixRules, type Workspace } from './workspace.js';

type Spawned = Extract<HostEvent, { type: 'agent.spawned' }>;

export interface AgentProcess {
  h: Harness & HarnessExtras;
  row: Row;
  provider: string;
  rec: Recorder;
  /** Permission requests the policy left to a person (answered reject by the runner). */
  asked: Extract<SessionEvent, { type: 'permission.asked' }>[];
  decided: Extract<SessionEvent, { type: 'permission.decided' }>[];
  /** The last process start (its quirk set and why). */
  spawned(): Spawned | undefined;
  /** A new session; the process starts with the first one. */
  open(): Promise<HarnessSession>;
  /** Records a session's permission traffic (and refuses what the policy leaves to a person), as open() does. */
  watch(hs: HarnessSession): void;
  /** Whether an agent process is up. */
  alive(): boolean;
  /** What the agent wrote on stderr before it died (crashes only). */
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
  o: {
    ws: Workspace;
    installDir: string;
    modelUrl: string;
    credentials: boolean;
    label: string;
    by: By;
    stallMs?: number;
  },
): Promise<AgentProcess> {
  const row = await setupRow(profile, { ...o, inProcess: true });
  const rec = new Recorder();
  const asked: AgentProcess['asked'] = [];
  const decided: AgentProcess['decided'] = [];
  const h = createHarness({
    home: row.talariaHome,
    env: currentEnv({ env: row.env, homeDir: row.home }),
    logger: stderrLogger(profile.name),
    host: {
      permission: { mode: 'ask', rules: matrixRules(o.ws.cwd), timeoutMs: 60_000 },
      setupTimeoutMs: profile.initTimeoutMs ?? 60_000,
      terminateGraceMs: 2_000,
      // The host's own watchdog catches a silent hang (opencode and kilo without credentials).
      ...(o.stallMs !== undefined ? { stallMs: o.stallMs, cancelGraceMs: 10_000 } : {}),
    },
    onFrame: (_k, f) => rec.onFrame(f),
  });
  const provider =
    o.by === 'id' && !viaProxy() ? profile.builtin : h.commandAgent(row.launch.command, row.launch.args).id;
  let spawned: Spawned | undefined;
  let tail = '';
  h.host.subscribe((e) => {
    if (e.type === 'agent.spawned') spawned = e;
    if (e.type === 'agent.crashed') tail = e.stderrTail;
  });
  function watch(hs: HarnessSession): void {
    hs.session.subscribe((e) => {
      if (e.type === 'permission.asked') {
        asked.push(e);
        // Nobody is at the keyboard: a request the policy did not settle is refused (and the cell fails).
        queueMicrotask(() => hs.session.answerPermission(e.requestKey, { choice: 'reject_once' }, 'matrix'));
      } else if (e.type === 'permission.decided') decided.push(e);
    });
  }
  return {
    h,
    row,
    provider,
    rec,
    asked,
    decided,
    spawned: () => spawned,
    async open() {
      const hs = await h.workspaces.open(o.ws.cwd).newSession({ provider });
      watch(hs);
      return hs;
    },
    watch,
    alive: () => h.host.agents().some((a) => a.state === 'running'),
    stderrTail: () => tail,
    close: () => h.close(),
  };
}
