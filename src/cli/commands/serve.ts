/**
 * `talaria serve`: the server face on one port (what `npm start` runs), and
 * `talaria serve tokens list|add|revoke` for its access tokens.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import type { Logger } from '../../protocol/types.js';
import {
  addToken,
  isLoopback,
  readTokens,
  RecordingRelay,
  revokeToken,
  startServer,
  tokensFile,
} from '../../server/index.js';
import type { CliContext } from './common.js';
import { talariaHome } from '../../os/home.js';
import { currentEnv } from '../../providers/locate.js';
import { homedir } from 'node:os';
import { removeDiscovery, writeDiscovery } from '../server-discovery.js';
import { joinFleet, servePeers } from './serve-fleet.js';
import { isPeerIdentity, PEER_MAX_FRAME_BYTES } from '../../server/fleet.js';
import { DEFAULT_PORT, rememberPort, SERVE_LINK_FILE, serveToken, stablePort } from './serve-link.js';

export const SERVE_HELP = `Usage: talaria serve [--port N] [--host ADDR] [--open] [--new-token] [--tls-cert FILE --tls-key FILE] [--insecure] [--store URL|FILE] [--public-url URL] [--join TOKEN]
       talaria serve tokens list | add [--observer] [--label TEXT] | revoke ID

Starts Talaria's server: the web UI at /, the HTTP API at /api, live sessions at /ws, on one port.
It prints one link with the server's access token (controller: can prompt and approve); open it.
The link stays the same across restarts (same port, same token), so open tabs and bookmarks
keep working: the token is kept in $TALARIA_HOME/${SERVE_LINK_FILE} (mode 0600) until it is
revoked (tokens revoke ID; its label is "serve") or replaced with --new-token.

Options:
  --port N              the port (default: the last one used, else ${DEFAULT_PORT}; the next free one
                        when it is taken). --port 0: a random free port
  --new-token           replace the server's token (the old link stops working at once)
  --host ADDR           the address to bind (default 127.0.0.1). Anything but loopback needs
                        --tls-cert and --tls-key, or --insecure (plain HTTP, warned on every start)
  --open                open the link in the default browser ($BROWSER when set)
  --tls-cert FILE       TLS certificate (PEM) — serve HTTPS
  --tls-key FILE        TLS private key (PEM)
  --insecure            allow plain HTTP on a non-loopback address
  --caps                also serve the capability face (CapTP) at /captp (references: talaria caps mint)
  --web-root DIR        serve the web UI from DIR (default: dist/web; env TALARIA_WEB_ROOT)
  --grace SECS          on SIGINT/SIGTERM, let running turns finish this long, then cancel (default 5)
  --store URL|FILE      where sessions are stored: a postgres:// URL (a fleet's shared store; the
                        password may come from PGPASSWORD) or a database file. Default: $TALARIA_STORE,
                        else config.json's "store", else $TALARIA_HOME/talaria.db. On a postgres://
                        store this server joins the fleet: every host sharing it sees this one and
                        its sessions (talaria sessions list --fleet; the web UI's list)
  --public-url URL      where other hosts and people reach this server (a fleet; default: its origin).
                        Off loopback it must be https:// (a fleet member is reached over TLS only)
  --join TOKEN          a fleet's join token (talaria fleet token; env TALARIA_FLEET_JOIN): needed the
                        first time this host joins a fleet, and after it was revoked. The first host
                        of an empty fleet, and a member restarting, join without one

Tokens (stored hashed in $TALARIA_HOME/server-tokens.json; a running server sees changes at once):
  tokens list           id, role, label and age of every stored token
  tokens add            a new controller token (--observer: read-only), printed once
  tokens revoke ID      removes it; its open connections close at once

Stop with Ctrl-C: running turns finish or are cancelled, every agent process stops.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  store: { type: 'string' },
  'public-url': { type: 'string' },
  join: { type: 'string' },
  open: { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  insecure: { type: 'boolean' },
  'web-root': { type: 'string' },
  grace: { type: 'string' },
  observer: { type: 'boolean' },
  label: { type: 'string' },
  caps: { type: 'boolean' },
  'new-token': { type: 'boolean' },
} as const;

function stderrLogger(io: CliIo): Logger {
  const line = (level: string) => (msg: string, data?: Record<string, unknown>) =>
    io.stderr.write(
      `talaria serve: ${level}${msg.replace(/^serve: /, '')}${data && Object.keys(data).length ? ` ${JSON.stringify(data)}` : ''}\n`,
    );
  return { debug: () => undefined, info: () => undefined, warn: line('warning: '), error: line('error: ') };
}

function home(io: CliIo): string {
  return talariaHome(currentEnv({ env: io.env, homeDir: io.env.HOME || homedir() }));
}

function tokensCommand(args: string[], p: ReturnType<typeof parse>, io: CliIo): number {
  const file = tokensFile(home(io));
  const [sub, arg] = args;
  if (sub === 'list') {
    const all = readTokens(file);
    if (all.length === 0) io.stdout.write('no stored tokens (`talaria serve` adds its own on its first start)\n');
    for (const t of all)
      io.stdout.write(
        `${t.id}  ${t.role.padEnd(10)}  ${new Date(t.createdAt).toISOString()}  ${t.label ?? ''}\n`.replace(
          / +\n$/,
          '\n',
        ),
      );
    return EXIT.OK;
  }
  if (sub === 'add') {
    const label = str(p, 'label');
    const { token, record } = addToken(file, flag(p, 'observer') ? 'observer' : 'controller', label);
    io.stdout.write(
      `${record.id} ${record.role}: ${token}\n(shown once; open the server's link with #token=${token.slice(0, 4)}… replaced by it)\n`,
    );
    return EXIT.OK;
  }
  if (sub === 'revoke') {
    if (!arg) throw new UsageError('serve tokens revoke: which token? (an id from `talaria serve tokens list`)');
    const gone = revokeToken(file, arg);
    if (!gone) {
      io.stderr.write(`talaria serve: no single token matches '${arg}' (see \`talaria serve tokens list\`)\n`);
      return EXIT.USAGE;
    }
    io.stdout.write(`revoked ${gone.id} (${gone.role})\n`);
    return EXIT.OK;
  }
  throw new UsageError(`serve tokens: expected list, add or revoke${sub ? `, not '${sub}'` : ''}`);
}

/** `--open`: $BROWSER when set (the usual convention; tests point it at a recorder), else the platform's opener. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const cmd =
    env.BROWSER?.trim() ||
    (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

export async function serveCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('serve', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${SERVE_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals[0] === 'tokens') return tokensCommand(p.positionals.slice(1), p, io);
  if (p.positionals.length > 0) throw new UsageError(`serve: unexpected argument '${p.positionals[0]}'`);
  const portText = str(p, 'port');
  const given = portText === undefined ? undefined : Number(portText);
  if (given !== undefined && (!Number.isInteger(given) || given < 0 || given > 65535))
    throw new UsageError(`serve: --port must be a port number (0-65535), not '${portText}'`);
  const host = str(p, 'host') ?? '127.0.0.1';
  const cert = str(p, 'tls-cert');
  const key = str(p, 'tls-key');
  if (Boolean(cert) !== Boolean(key)) throw new UsageError('serve: --tls-cert and --tls-key go together');
  if (!isLoopback(host) && !cert && !flag(p, 'insecure')) {
    throw new UsageError(
      `serve: --host ${host} is not loopback: give --tls-cert and --tls-key (or --insecure for plain HTTP)`,
    );
  }
  const graceText = str(p, 'grace');
  const graceMs = graceText === undefined ? 5000 : Number(graceText) * 1000;
  if (!Number.isFinite(graceMs) || graceMs < 0)
    throw new UsageError(`serve: --grace must be seconds, not '${graceText}'`);
  const store = str(p, 'store');
  if (store !== undefined && store.trim() === '')
    throw new UsageError('serve: --store needs a postgres:// URL or a file');
  const webRoot = str(p, 'web-root') ?? io.env.TALARIA_WEB_ROOT;
  const logger = stderrLogger(io);

  // The stop signals are ours before the link is printed: a signal sent as soon as it shows (a
  // supervisor, a test) must stop the server gracefully, not kill the process by default action.
  const offs: (() => void)[] = [];
  const stopped = new Promise<string>((r) => {
    offs.push(ctx.onInterrupt(() => r('SIGINT')));
    offs.push(ctx.onTerminate((sig) => r(sig)));
  });
  // Recording delays and failures reach every browser as session events (server/recording.ts).
  const recording = new RecordingRelay();
  const harness = ctx.harness({ warm: true, ...recording.harnessOptions, ...(store !== undefined ? { store } : {}) });
  // The lasting link: the same token (and, without --port, the same port) as the last start.
  const link = serveToken(harness.home, tokensFile(harness.home), { rotate: flag(p, 'new-token') });
  const port = given ?? (await stablePort(harness.home, host));
  const publicUrl = str(p, 'public-url');
  let server;
  let fleet: Awaited<ReturnType<typeof joinFleet>>;
  try {
    fleet = await joinFleet(harness, {
      storeUrl: store ?? (io.env.TALARIA_STORE || harness.config.store),
      publicUrl,
      joinToken: str(p, 'join') ?? (io.env.TALARIA_FLEET_JOIN || undefined),
      bind: { host, tls: Boolean(cert && key) },
      env: io.env,
      logger,
    });
    server = await startServer({
      harness,
      recording,
      port,
      nextFreePort: given === undefined,
      host,
      logger,
      version: ctx.version,
      graceMs,
      ...(cert && key ? { tls: { cert: resolve(cert), key: resolve(key) } } : {}),
      ...(flag(p, 'insecure') ? { insecure: true } : {}),
      ...(webRoot ? { webRoot: resolve(webRoot) } : {}),
      ...(fleet ? { fleet: fleet.server } : {}),
    });
  } catch (err) {
    for (const off of offs) off();
    await fleet?.member.stop();
    await harness.close();
    const e = err as NodeJS.ErrnoException;
    // Not admitted to the fleet (no or a bad join token, revoked, plain HTTP off loopback): what to do.
    if ((err as Error).name === 'FleetError') {
      io.stderr.write(`talaria serve: ${(err as Error).message}\n`);
      return EXIT.NOT_READY;
    }
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES') {
      io.stderr.write(
        `talaria serve: cannot listen on ${host}:${port} (${e.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied'}); try another --port\n`,
      );
      return EXIT.NOT_READY;
    }
    throw err;
  }
  // --caps: the capability face at /captp (token checked by the server, then a reference by the
  // face). Loaded on demand: it locks the process down (SES), which the rest of serve survives
  // (test/caps/lockdown.test.ts).
  let caps: { close(): Promise<void> } | undefined;
  // A fleet serves its peer hosts over /captp too (serve-fleet.ts servePeers): without --caps, to them only.
  if (flag(p, 'caps') || fleet) {
    const face = await import('../../caps/index.js');
    const capsHost = new face.CapsHost({ harness, logger, cursor: server.events });
    const up = face.capsUpgradeHandler(capsHost);
    // A peer host's socket carries forwarded prompts' images (and their events back): a larger frame limit.
    const upPeer = fleet ? face.capsUpgradeHandler(capsHost, { maxPayload: PEER_MAX_FRAME_BYTES }) : up;
    server.mount(
      '/captp',
      (req, socket, head, who) => (isPeerIdentity(who) ? upPeer : up).handleUpgrade(req, socket, head),
      {
        tokens: flag(p, 'caps'),
      },
    );
    const offPeers = fleet
      ? await servePeers(fleet, { harness, caps: capsHost, server, env: io.env, logger })
      : undefined;
    // Who can run here, as facts observers watch (`{type: 'agent', id, ready, …}`): for --caps clients.
    if (flag(p, 'caps'))
      capsHost
        .publishAgents()
        .catch((err: unknown) =>
          logger.warn('caps: agent facts not published', { error: err instanceof Error ? err.message : String(err) }),
        );
    // A fleet's hosts and other hosts' sessions as facts beside this host's own.
    const offFleet =
      fleet && flag(p, 'caps')
        ? (await import('../../fleet/presence-facts.js')).publishFleetFacts(capsHost.dataspace, fleet.member)
        : () => undefined;
    caps = {
      close: async () => (offFleet(), await offPeers?.(), up.wss.close(), upPeer.wss.close(), await capsHost.close()),
    };
  }
  // The folder serve was started in is the first workspace, with the agent it would use.
  const cwd = process.cwd();
  harness.workspaces.open(cwd);
  if (given === undefined) rememberPort(harness.home, server.port);
  const url = `${server.origin}/#token=${link.token}`;
  io.stdout.write(`Talaria is serving ${cwd}\n  ${url}\n`);
  if (link.created && flag(p, 'new-token')) io.stdout.write('  (a new token: links with the old one no longer work)\n');
  if (fleet) {
    if (!publicUrl) fleet.member.setPublicUrl(server.origin);
    io.stdout.write(`  fleet: host ${fleet.member.hostName} (${fleet.member.hostId}) on ${fleet.where}\n`);
  }
  if (flag(p, 'caps'))
    io.stdout.write(`  caps: ${server.origin.replace(/^http/, 'ws')}/captp (references: talaria caps mint)\n`);
  void harness
    .pickAgent({ workspace: cwd, timeoutMs: 10_000 })
    .then((pick) =>
      io.stdout.write(
        `  agent: ${pick.provider}${pick.from === 'fallback' ? ' (no agent is ready: the offline demo agent; `talaria doctor` says why)' : ''}\n`,
      ),
    )
    .catch(() => undefined);
  if (flag(p, 'open')) openBrowser(url, io.env);
  // `talaria run` on this home uses this server (issue 16): a token of its own, in memory only, so it dies with the server.
  writeDiscovery(harness.home, {
    url: server.origin,
    pid: process.pid,
    token: server.tokens.addEphemeral('controller', 'talaria run').token,
    version: ctx.version,
  });

  // Revoked from its fleet: it left the fleet, and stops rather than serve the shared store outside it.
  const revoked = fleet?.revoked.then((e) => (io.stderr.write(`talaria serve: ${e.message}\n`), 'revoked' as const));
  const sig = await Promise.race([stopped, ...(revoked ? [revoked] : [])]);
  removeDiscovery(harness.home);
  io.stderr.write(`talaria serve: ${sig}: stopping (running turns get ${graceMs / 1000} s)\n`);
  await caps?.close();
  // Before the server closes the store: the other hosts see this one offline at once.
  await fleet?.member.stop();
  await server.close();
  for (const off of offs) off();
  return sig === 'revoked' ? EXIT.NOT_READY : EXIT.OK;
}
