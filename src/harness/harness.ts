/**
 * The library face (DESIGN.md "Faces"): one object that owns the provider registry, the agent
 * host and the store, and hands out workspaces whose sessions are recorded as frames arrive.
 *
 *   const h = createHarness();                       // $TALARIA_HOME or ~/.talaria
 *   const ws = h.workspaces.open('/my/project');
 *   const s = await ws.newSession();                       // best ready agent (or --agent's)
 *   await s.prompt('hi').result;
 *   const again = await ws.openSession(s.id);              // after a restart, too
 *   await h.close();
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { demoAgentCommand } from '../demo/command.js';
import { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import { silentLogger } from '../protocol/types.js';
import { TalariaError } from '../protocol/errors.js';
import { talariaHome, workspaceBinding } from '../providers/config.js';
import { customProvider } from '../providers/custom.js';
import { demoProvider } from '../providers/builtin.js';
import { currentEnv } from '../providers/locate.js';
import { loadRegistry } from '../providers/registry.js';
import type { Provider, ProviderEnv } from '../providers/types.js';
import { openStore, type Lease, type StoredSession } from '../store/index.js';
import { agentStatuses, hermesProfiles, pickAgent } from './choose.js';
import type { RecordingDeps } from './hosted.js';
import { ruleJson } from './rules.js';
import { SessionLocks } from './session-locks.js';
import { SetupFrames } from './setup-frames.js';
import { exportSession, importSession, findStored, setArchived } from './transfer.js';
import type { ConnectionInfo, Harness, HarnessOptions, HarnessSession } from './types.js';
import { createWorkspace } from './workspace.js';

/** Where an ad-hoc command agent's command is kept in a stored row, to rebuild it on reopen. */
interface Launch {
  command: string;
  args: string[];
}

/** The demo agent, with the TALARIA_DEMO_* knobs of our env (timings, its session folder) passed on. */
function demoWithEnv(env: ProviderEnv): Provider {
  const p = demoProvider(demoAgentCommand());
  const knobs = Object.keys(env.env).filter((k) => k.startsWith('TALARIA_DEMO_'));
  return { ...p, env: { ...p.env, inherit: [...p.env.inherit, ...knobs] } };
}

export interface HarnessExtras {
  /**
   * Registers `command args` as an ad-hoc agent (id `cmd:<name>-<hash>`); its sessions remember the
   * command. Its quirks follow what the agent says in initialize; `agentName` (what an earlier
   * process of it said) lets the first process get its client capabilities right away.
   */
  commandAgent(command: string, args: string[], label?: string, agentName?: string): Provider;
}

export function createHarness(o: HarnessOptions = {}): Harness & HarnessExtras {
  const logger = o.logger ?? silentLogger;
  const env = o.env ?? currentEnv({ logger });
  const home = o.home ?? talariaHome(env);
  const loaded = o.registry ? undefined : loadRegistry(env, { home, demo: demoAgentCommand() });
  const registry = o.registry ?? loaded!.registry;
  const config = loaded?.config ?? { agents: {}, workspaces: {}, imports: { zed: false, jetbrains: false } };
  if (!o.registry) registry.add(demoWithEnv(env));
  const store = openStore({ ...(o.storePath ? { path: o.storePath } : { home }), logger });
  const setup = new SetupFrames();
  const locks = new SessionLocks(store, {
    waitMs: o.sessionWaitMs ?? 0,
    ...(o.onSessionWait ? { onWait: (l: Lease) => o.onSessionWait!({ sessionId: l.sessionId, pid: l.pid, host: l.host }) } : {}),
  });
  const decisions = new Map<string, (e: PermissionDecisionEvent) => void>();
  const talariaIds = new Map<string, string>();
  const live = new Set<HarnessSession>();
  const launches = new Map<string, Launch>();

  const host = new AgentHost({
    registry,
    env,
    logger,
    ...(o.host ?? {}),
    workspaceEnv: (ws) => workspaceBinding(config, ws)?.binding.env,
    // Each session's frames are held from its creation until it is recorded.
    onSession: (session) => setup.begin(session),
    ...(o.onFrame ? { onFrame: o.onFrame } : {}),
    ...(o.onProtocolError ? { onProtocolError: o.onProtocolError } : {}),
    onPermissionDecision: (e) => decisions.get(e.sessionId)?.(e),
    onRule: (sid, rule) => {
      const id = talariaIds.get(sid);
      if (id && !store.closed) store.permissions.addRule({ scope: 'session', scopeId: id, rule: ruleJson(rule) });
    },
  });

  const commandAgent = (command: string, args: string[], label?: string, agentName?: string): Provider => {
    const name = basename(command).replace(/\.[cm]?[jt]s$/, '') || 'agent';
    // The same command line always gets the same id (its stored sessions find it again); others differ.
    const hash = createHash('sha256')
      .update(JSON.stringify([command, ...args]))
      .digest('hex')
      .slice(0, 6);
    const p = customProvider({ name, command, args, label: label ?? [command, ...args].join(' ') }, { id: `cmd:${name}-${hash}`, ...(agentName ? { agentName } : {}) });
    const adhoc: Provider = { ...p, install: `command not found: ${command} (check the --agent-cmd command line).` };
    registry.add(adhoc);
    launches.set(adhoc.id, { command, args });
    return adhoc;
  };

  const deps: RecordingDeps = { store, host, logger, setup, locks, decisions, talariaIds, live, ...(o.onRecordingError ? { onRecordingError: o.onRecordingError } : {}) };
  const pick: Harness['pickAgent'] = (p) => pickAgent({ registry, config, env }, p);

  const providerFor = (row: StoredSession) => {
    if (!registry.has(row.provider)) {
      const stored = row.agentInfo as { launch?: Launch; agentInfo?: { name?: unknown } } | undefined;
      const launch = stored?.launch;
      if (!launch) {
        throw new TalariaError('invalid_argument', `session ${row.id} was made with agent "${row.provider}", which is not configured here`, { provider: row.provider });
      }
      const said = stored?.agentInfo?.name;
      commandAgent(launch.command, launch.args, undefined, typeof said === 'string' && said !== '' ? said : undefined);
    }
    return { provider: row.provider, ...(row.profile ? { profile: row.profile } : {}) };
  };

  const agentInfoFor = (provider: string, info: ConnectionInfo | undefined) => {
    const launch = launches.get(provider);
    const out: Record<string, unknown> = {};
    if (info?.agentInfo) out.agentInfo = info.agentInfo;
    if (info?.protocolVersion !== undefined) out.protocolVersion = info.protocolVersion;
    if (launch) out.launch = launch;
    return out;
  };

  const wsDeps = { ...deps, registry, pick, providerFor, agentInfoFor, ...(o.host?.permission?.mode ? { permissionMode: o.host.permission.mode } : {}) };
  let closed = false;

  const harness: Harness & HarnessExtras = {
    home,
    registry,
    config,
    configProblems: loaded?.problems ?? [],
    env,
    host,
    store,
    workspaces: {
      open: (path) => createWorkspace(wsDeps, store.workspaces.ensure({ path })),
      list: () => store.workspaces.list(),
    },
    sessions: {
      find: (id) => findStored(store, id),
      list: (f = {}) =>
        store.sessions.list({
          ...(f.includeArchived ? { includeArchived: true } : {}),
          ...(f.archivedOnly ? { archivedOnly: true } : {}),
          ...(f.workspace !== undefined ? { workspaceId: store.workspaces.ensure({ path: f.workspace }).id } : {}),
        }),
      archive: (id) => setArchived(store, id, true),
      unarchive: (id) => setArchived(store, id, false),
      export: (id, format) => exportSession(store, id, format),
      import: (text, io = {}) => importSession(store, registry, (path) => store.workspaces.ensure({ path }).id, text, io),
    },
    agents: (a) => agentStatuses({ registry, config, env }, a),
    pickAgent: pick,
    hermesProfiles: (a) => hermesProfiles({ registry, config, env }, a),
    connectionInfo: (key) => host.connectionInfo(key),
    commandAgent,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await host.shutdown();
      } finally {
        for (const s of [...live]) await s.close().catch((err: unknown) => logger.warn('closing a session failed', { sessionId: s.id, error: String(err) }));
        locks.releaseAll();
        store.close();
      }
    },
  };
  return harness;
}
