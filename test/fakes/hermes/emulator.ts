/**
 * Hermes Agent emulator — an executable fake of `hermes` (0.18.2 wire behaviour by
 * default, HERMES_EMU_VERSION=0.21 for the newer one). Run:
 *   node --import tsx emulator.ts [-p PROFILE] acp [--accept-hooks]
 * stdout carries only NDJSON frames (plus the one non-JSON line Hermes really prints);
 * logs go to stderr. Env switches: see config.ts (readSettings).
 */
import { HermesAgent } from './agent.js';
import { runCli } from './cli.js';
import { hermesRoot, readConfig, readSettings } from './config.js';
import { readContextCache } from './overflow.js';
import { Peer } from './rpc.js';
import type { Ctx } from './runtime.js';
import { Store } from './state.js';

function startAcp(): void {
  const settings = readSettings();
  const home = process.env.HERMES_HOME || hermesRoot();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const peer = new Peer({
    onRequest: (m, p) => agent.request(m, p),
    onNotification: (m, p) => agent.notification(m, p),
    // stdin closed: exit 0 once stdout has drained.
    onEnd: () => process.stdout.write('', () => process.exit(0)),
    log,
    logPath: settings.logPath,
  });
  const cfg = readConfig(home);
  const ctx: Ctx = {
    peer,
    store: new Store(home),
    settings,
    cfg,
    runtimes: new Map(),
    counters: { perm: 0, edit: 0 },
    allowAlways: new Set(),
    started: { agents: 0, prompts: 0 },
    auxContext: settings.overflowReal ? readContextCache(home, { cfg }) : null,
    log,
  };
  const agent = new HermesAgent(ctx);
  process.on('uncaughtException', (e) => log(`ERROR acp_adapter: ${e.stack ?? String(e)}`));
  log(`INFO acp_adapter.entry: Starting Hermes ACP agent v${settings.version} (HERMES_HOME=${home})`);
  // Cold start: real Hermes reads stdin only once its imports are done (measured from spawn).
  const hold = Math.max(0, Math.round(settings.initDelayMs - process.uptime() * 1000));
  if (settings.initDelayMs > 0) log(`INFO acp_adapter.entry: cold start: reading stdin in ${hold} ms`);
  setTimeout(() => peer.start(process.stdin), hold);
}

const code = runCli(process.argv.slice(2));
if (code === 'acp') startAcp();
else process.exitCode = code;
