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
import { basename, resolve } from 'node:path';
import { demoAgentCommand } from '../demo/command.js';
import { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import { silentLogger } from '../protocol/types.js';
import { TalariaError } from '../protocol/errors.js';
import { workspaceBinding } from '../providers/config.js';
import { talariaHome } from '../os/home.js';
import { customProvider } from '../providers/custom.js';
import { demoProvider } from '../providers/builtin.js';
import { currentEnv } from '../providers/locate.js';
import { agentHomeVariables, loadRegistry } from '../providers/registry.js';
import type { Provider, ProviderEnv } from '../providers/types.js';
import { isPgUrl, openStore, type Lease, type StoredSession } from '../store/index.js';
import { agentStatuses, likelyAgent, pickAgent } from './choose.js';
import type { RecordingDeps } from './hosted.js';
import { ruleJson } from './rules.js';
import { branchTree, trackReseeds } from './branches.js';
import { SessionLocks } from './session-locks.js';
import { SetupFrames } from './setup-frames.js';
import { exportSession, importSession, findStored, setArchived } from './transfer.js';
import type { ConnectionInfo, Harness, HarnessOptions, HarnessSession } from './types.js';
import { storedRecords } from './stored.js';
import { createWorkspace } from './workspace.js';
import { WarmPool } from './warm-pool.js';
import { profileResolver } from './workspace-profile.js';
import { checkWorkspaceHere } from './workspace-here.js';
import { background } from '../os/background.js';

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
  const where = o.store ?? o.storePath ?? config.store;
  const store = openStore({
    ...(where === undefined ? { home } : isPgUrl(where) ? { url: where } : { path: where }),
    ...(o.storeBusyTimeoutMs !== undefined ? { busyTimeoutMs: o.storeBusyTimeoutMs } : {}),
    logger,
  });
  // A workspace is a path on one host: on a fleet's store, this host's (a SQLite store has no other).
  if (where !== undefined && isPgUrl(where) && o.fleetHostId) {
    try {
      store.workspaces.useHost(o.fleetHostId(home));
    } catch (err) {
      store.close();
      throw err;
    }
  }
  const setup = new SetupFrames();
  const locks = new SessionLocks(store, {
    waitMs: o.sessionWaitMs ?? 0,
    ...(o.onSessionWait
      ? { onWait: (l: Lease) => o.onSessionWait!({ sessionId: l.sessionId, pid: l.pid, host: l.host }) }
      : {}),
  });
  const decisions = new Map<string, (e: PermissionDecisionEvent) => void>();
  const talariaIds = new Map<string, string>();
  const live = new Set<HarnessSession>();
  const launches = new Map<string, Launch>();

  /** What the newest stored session of an agent says it is (initialize's agentInfo). */
  const identity = (provider: string): { name: string; version?: string } | undefined => {
    const said = (
      store.sessions.lastAgentInfo(provider) as { agentInfo?: { name?: unknown; version?: unknown } } | undefined
    )?.agentInfo;
    return typeof said?.name === 'string' && said.name !== ''
      ? { name: said.name, ...(typeof said.version === 'string' ? { version: said.version } : {}) }
      : undefined;
  };

  const host = new AgentHost({
    registry,
    env,
    logger,
    ...(config.maxPromptBytes !== undefined ? { maxPromptBytes: config.maxPromptBytes } : {}),
    ...(o.host ?? {}),
    workspaceEnv: (ws) => workspaceBinding(config, ws)?.binding.env,
    // A custom command's agent is known by what it said last time (a Hermes launcher keeps spares).
    agentIdentity: (provider) => identity(provider),
    authHome: home,
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
    const p = customProvider(
      { name, command, args, label: label ?? [command, ...args].join(' ') },
      { id: `cmd:${name}-${hash}`, ...(agentName ? { agentName } : {}) },
    );
    // The home variables a built-in agent gets (HERMES_HOME, …): the same agent, the same home, however it is started.
    const env = { ...p.env, inherit: [...new Set([...p.env.inherit, ...agentHomeVariables()])] };
    const adhoc: Provider = {
      ...p,
      env,
      install: `command not found: ${command} (check the --agent-cmd command line).`,
    };
    registry.add(adhoc);
    launches.set(adhoc.id, { command, args });
    return adhoc;
  };

  const offReseeds = trackReseeds({ store, host, logger, decisions, talariaIds });
  const deps: RecordingDeps = {
    store,
    host,
    logger,
    setup,
    locks,
    decisions,
    talariaIds,
    live,
    ...(o.onRecordingError ? { onRecordingError: o.onRecordingError } : {}),
    ...(o.onRecordingDelay ? { onRecordingDelay: o.onRecordingDelay } : {}),
  };
  // An agent with a spare ready, or a process up with a session open on it, is ready: the pick
  // does not check it again (that spawns its binary; seconds for Hermes on every new session).
  const proven = (provider: string, profile: string | undefined) =>
    warm.hasSpare(provider, profile) ||
    host
      .agents()
      .some(
        (a) =>
          a.state === 'running' &&
          a.sessions.length > 0 &&
          a.key.provider === provider &&
          (a.key.profile || undefined) === profile,
      );
  const pick: Harness['pickAgent'] = (p) => pickAgent({ registry, config, env }, { proven, ...p });

  const providerFor = (row: StoredSession) => {
    if (!registry.has(row.provider)) {
      const stored = row.agentInfo as { launch?: Launch; agentInfo?: { name?: unknown } } | undefined;
      const launch = stored?.launch;
      if (!launch) {
        throw new TalariaError(
          'invalid_argument',
          `session ${row.id} was made with agent "${row.provider}", which is not configured here`,
          { provider: row.provider },
        );
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

  const permissionMode = o.host?.permission?.mode;
  const warmOpts = typeof o.warm === 'object' ? o.warm : { enabled: o.warm !== false && config.warm !== false };
  const warm = new WarmPool(host, logger, warmOpts, (t) => ({
    ...t,
    cwd: resolve(t.workspace),
    ...(permissionMode ? { permissionMode } : {}),
  }));
  const profiles = profileResolver({ registry, store, env });
  const wsDeps = {
    ...deps,
    registry,
    pick,
    profiles,
    providerFor,
    agentInfoFor,
    warm,
    ...(permissionMode ? { permissionMode } : {}),
  };
  let closed = false;
  /** Workspaces whose agent was started ahead by this harness (once each: later spares come with use). */
  const warmed = new Set<string>();

  /** An opened workspace's agent is started in the background, where that helps (an agent slow to start that can keep a spare). */
  const prewarm = (path: string, id: string) => {
    if (!warm.enabled || warmed.has(path)) return;
    warmed.add(path);
    const start = async () => {
      const p = await likelyAgent({ registry, config, env, identity }, path);
      // The workspace's own profile is warmed once its first session made it; never made here.
      const set = p && profiles.peek(id, p.provider);
      if (set?.own && !set.exists) return;
      const t = p && { ...p, ...(set ? { profile: set.profile } : {}), workspace: path };
      if (t && !closed && host.keepsSpares(t)) warm.warm(t);
    };
    background(start(), logger, 'warming the workspace agent', { workspace: path });
  };

  const records = storedRecords(store);
  const harness: Harness & HarnessExtras = {
    home,
    registry,
    config,
    configProblems: loaded?.problems ?? [],
    env,
    host,
    store,
    warm,
    workspaces: {
      ...records.workspaces,
      open: (path) => {
        checkWorkspaceHere(store.workspaces, path);
        const ws = createWorkspace(wsDeps, store.workspaces.ensure({ path }));
        prewarm(ws.path, ws.id);
        return ws;
      },
      list: () => store.workspaces.list(),
    },
    sessions: {
      ...records.sessions,
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
      branches: (id) => {
        const row = findStored(store, id);
        if (!row) throw new TalariaError('session_not_found', `no stored session ${id}`, { sessionId: id });
        return branchTree(store, row.id);
      },
      import: (text, io = {}) =>
        importSession(store, registry, (path) => store.workspaces.ensure({ path }).id, text, io),
    },
    permissions: records.permissions,
    agents: (a) => agentStatuses({ registry, config, env, identity }, a),
    pickAgent: pick,
    profileFor: (id, provider) => profiles.peek(id, provider),
    connectionInfo: (key) => host.connectionInfo(key),
    joinFleet: (f) => locks.joinFleet(f),
    commandAgent,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await warm.close();
        await host.shutdown();
      } finally {
        offReseeds();
        for (const s of [...live])
          await s
            .close()
            .catch((err: unknown) => logger.warn('closing a session failed', { sessionId: s.id, error: String(err) }));
        locks.releaseAll();
        store.close();
      }
    },
  };
  return harness;
}
