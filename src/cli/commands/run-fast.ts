/**
 * The warm path of `talaria run` (issue 16), taken by main.ts before the full CLI is loaded: when
 * a `talaria serve` runs on this home, the run goes through it without loading the harness, the
 * store or the ACP stack (most of a cold command's start-up). Anything it is not sure about
 * (help, bad usage, a prompt on stdin, no server, a setup failure) returns undefined and the full
 * `talaria run` handles the command as before.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { APPROVE_MODES, type ApproveMode } from '../approve.js';
import { parse, str, flag, type Parsed } from '../args.js';
import { colorEnabled, processIo, type CliIo } from '../io.js';
import { createStyle } from '../render/style.js';
import { findServer } from '../server-discovery.js';
import type { AgentArgs } from './common.js';
import { RUN_OPTIONS, serverEligible } from './run-options.js';
import { runTrace } from '../run-trace.js';
import { packageVersion } from '../package-version.js';
import { talariaHome } from '../../os/home.js';

/** The agent arguments when they are plainly valid; undefined sends the command to the full path (which explains). */
function agentArgsOrUndefined(p: Parsed): AgentArgs | undefined {
  const agent = str(p, 'agent');
  const profile = str(p, 'profile');
  const cwd = resolve(str(p, 'cwd') ?? process.cwd());
  try {
    if (!statSync(cwd).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const t = str(p, 'setup-timeout');
  const secs = t === undefined ? 60 : Number(t);
  if (!Number.isFinite(secs) || secs <= 0) return undefined;
  const choice = { ...(agent !== undefined ? { agent } : {}), ...(profile !== undefined ? { profile } : {}) };
  return { choice, cwd, setupTimeoutMs: Math.round(secs * 1000), verbose: flag(p, 'verbose') };
}

/** One handler per signal group while the run lives (the run decides what a signal does). */
function onSignals(signals: NodeJS.Signals[]): (fn: (s: NodeJS.Signals) => void) => () => void {
  return (fn) => {
    for (const s of signals) process.on(s, fn);
    return () => {
      for (const s of signals) process.off(s, fn);
    };
  };
}

/**
 * The exit code when the run went through a server; otherwise `{ skipped }` when the server was
 * looked for and not used (the full path then runs locally without asking again), or undefined.
 */
export async function runFast(
  argv: string[],
  io: CliIo = processIo(),
): Promise<number | { skipped: string } | undefined> {
  const trace = runTrace(io);
  trace('start');
  let p: Parsed;
  try {
    p = parse('run', argv, RUN_OPTIONS);
  } catch {
    return undefined;
  }
  if (flag(p, 'help')) return undefined;
  if (p.positionals.length === 0 || (p.positionals.length === 1 && p.positionals[0] === '-')) return undefined;
  const approveText = str(p, 'approve') ?? 'ask';
  if (!(APPROVE_MODES as readonly string[]).includes(approveText)) return undefined;
  const approve = approveText as ApproveMode;
  if (flag(p, 'json') && flag(p, 'ndjson')) return undefined;
  if (!serverEligible(p, io.env, approve)) return undefined;
  const a = agentArgsOrUndefined(p);
  if (!a) return undefined;
  const found = findServer(talariaHome({ env: io.env, homeDir: io.env.HOME || homedir() }));
  if (!('server' in found)) return { skipped: found.skipped };
  trace('found');
  const { runOnServer } = await import('./run-server.js');
  // stderr first: stdin is not touched (its stream not made) when nobody could be asked anyway.
  const interactive = approve !== 'none' && io.stderr.isTTY === true && io.stdin.isTTY === true;
  const errStyle = createStyle(colorEnabled(io.stderr, io.env));
  const ctx = {
    io,
    version: packageVersion(),
    onInterrupt: onSignals(['SIGINT']),
    onTerminate: onSignals(['SIGTERM', 'SIGHUP']),
  };
  const code = await runOnServer(
    found.server,
    {
      prompt: p.positionals.join(' '),
      approve,
      json: flag(p, 'json'),
      a,
      sessionArg: str(p, 'session'),
      interactive,
      errStyle,
    },
    ctx,
  );
  // '' on a fallback: run-server already said why (with --verbose).
  return code === 'fallback' ? { skipped: '' } : code;
}
