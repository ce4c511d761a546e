/**
 * The keyless run of agents that hang silently without credentials (opencode, kilo), driven
 * through Talaria's AgentHost so that the product's own stall watchdog (src/host/watchdog.ts)
 * catches the hang: `turn.stalled`, then cancel, then (if still silent) the process is stopped.
 */
import { join } from 'node:path';
import { AgentHost } from '../../../src/host/index.js';
import { ProviderRegistry, currentEnv, customProvider } from '../../../src/providers/index.js';
import { offlineEnv } from '../profiles/env.js';
import type { AgentProfile } from '../profiles/types.js';
import { Recorder } from './recorder.js';
import type { Check } from './scenarios.js';
import type { Workspace } from './workspace.js';

export async function hostKeylessRun(
  profile: AgentProfile,
  o: { ws: Workspace; installDir: string; modelUrl: string; logs: string; stallMs: number },
): Promise<Check> {
  const { home, tmp } = o.ws.freshHome('keyless-host');
  const launch = await profile.launch({ installDir: o.installDir, home, tmp, cwd: o.ws.cwd, modelUrl: o.modelUrl, credentials: false });
  const env = Object.fromEntries(
    Object.entries(offlineEnv({ home, tmp, installDir: o.installDir, extra: launch.env })).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const id = `matrix-${profile.name}`;
  const registry = new ProviderRegistry([customProvider({ name: id, command: launch.command, args: launch.args, env }, { id })]);
  const rec = new Recorder();
  const host = new AgentHost({
    registry,
    env: currentEnv({ env, homeDir: home }),
    stallMs: o.stallMs,
    cancelGraceMs: 10_000,
    setupTimeoutMs: 60_000,
    onFrame: (_key, f) => rec.onFrame(f),
  });
  let stalled: { silentMs: number } | undefined;
  host.subscribe((e) => {
    if (e.type === 'turn.stalled') stalled = e;
  });
  try {
    const session = await host.newSession({ provider: id, workspace: o.ws.cwd });
    // No deadline of our own: the host's watchdog must end this turn.
    const r = await session.prompt('Please reply to this matrix text probe.').result;
    if (!stalled) return { ok: false, detail: `the host watchdog did not fire: ${r.stopReason} ${r.error?.message ?? ''}` };
    const how = r.stopReason === 'cancelled' ? 'cancelled' : `${r.stopReason}${r.error ? ` (${r.error.code})` : ''}`;
    return { ok: true, detail: `host stall watchdog: turn.stalled after ${Math.round(stalled.silentMs / 1000)} s of silence, turn ${how}` };
  } finally {
    await host.shutdown();
    rec.write(join(o.logs, 'no-credentials.ndjson'));
  }
}
