/**
 * One row of the matrix: an agent started the way a user starts it — by Talaria's built-in id, or
 * by its own command line — on a fresh machine (new HOME, PATH with only the install and the
 * system, no ambient credential). The launch profile only sets up what a user would: its env
 * goes into Talaria's config.json (the workspace's env), its config files into the fresh HOME.
 * No fix is handed to Talaria: the quirk set must come from what the agent says in initialize.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { offlineEnv } from '../profiles/env.js';
import type { AgentProfile, Launch } from '../profiles/types.js';
import type { Workspace } from './workspace.js';

export type By = 'id' | 'command';

/**
 * `npm run test:agents -- --via-proxy`: each row's agent (by id or by command, as usual) is hosted
 * by `talaria acp` and the harness drives that proxy by command, so every cell goes through it.
 */
export const viaProxy = (): boolean => process.env.MATRIX_VIA_PROXY === '1';
const TALARIA_BIN = fileURLToPath(new URL('../../../bin/talaria.js', import.meta.url));

/** The `talaria acp` command line hosting a row's agent (its store and config are the row's). */
export function proxyLaunch(launch: Launch, agentArgs: string[], o: { talariaHome: string; cwd: string }): Launch {
  return {
    ...launch,
    command: '/usr/bin/env',
    args: [`TALARIA_HOME=${o.talariaHome}`, process.execPath, TALARIA_BIN, 'acp', ...agentArgs, '--cwd', o.cwd],
  };
}

export interface Row {
  by: By;
  home: string;
  talariaHome: string;
  /** The environment a `talaria` process of this row runs with. */
  env: Record<string, string>;
  launch: Launch;
  /** `--agent ID` or `--agent-cmd "COMMAND ARGS"`. */
  agentArgs: string[];
}

/** Switches off update checks and telemetry in tools that read these (set like any user setting). */
const OFFLINE_SWITCHES = { NO_UPDATE_NOTIFIER: '1', DO_NOT_TRACK: '1', CI: '1' };

/** Quotes one word for the CLI's POSIX-like `--agent-cmd` splitter. */
export function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Sets up a fresh HOME for one run of the row. `inProcess`: the harness runs inside this test
 * process (whose own HOME and PATH would otherwise reach the agent), so the row's basics go into
 * the workspace env too; a `talaria` child process gets them as its own environment.
 */
export async function setupRow(
  profile: AgentProfile,
  o: {
    ws: Workspace;
    installDir: string;
    modelUrl: string;
    credentials: boolean;
    label: string;
    by: By;
    inProcess: boolean;
  },
): Promise<Row> {
  const { home, tmp } = o.ws.freshHome(`${o.by}-${o.label}`);
  const launch = await profile.launch({
    installDir: o.installDir,
    home,
    tmp,
    cwd: o.ws.cwd,
    modelUrl: o.modelUrl,
    credentials: o.credentials,
    by: o.by,
  });
  const env = Object.fromEntries(
    Object.entries(offlineEnv({ home, tmp, installDir: o.installDir, extra: {} })).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  const talariaHome = join(home, '.talaria');
  mkdirSync(talariaHome, { recursive: true });
  const wsEnv = { ...(o.inProcess ? env : {}), ...OFFLINE_SWITCHES, ...launch.env };
  writeFileSync(
    join(talariaHome, 'config.json'),
    JSON.stringify({ workspaces: { [o.ws.cwd]: { env: wsEnv } }, imports: { zed: false, jetbrains: false } }, null, 2),
  );
  const agentArgs =
    o.by === 'id'
      ? ['--agent', profile.builtin]
      : ['--agent-cmd', [launch.command, ...launch.args].map(quoteWord).join(' ')];
  if (viaProxy()) {
    const proxied = proxyLaunch(launch, agentArgs, { talariaHome, cwd: o.ws.cwd });
    return {
      by: o.by,
      home,
      talariaHome,
      env: { ...env, TALARIA_HOME: talariaHome },
      launch: proxied,
      agentArgs: ['--agent-cmd', [proxied.command, ...proxied.args].map(quoteWord).join(' ')],
    };
  }
  return { by: o.by, home, talariaHome, env: { ...env, TALARIA_HOME: talariaHome }, launch, agentArgs };
}
