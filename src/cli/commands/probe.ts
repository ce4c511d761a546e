/**
 * `talaria probe [--agent ID | --agent-cmd CMD] [--cwd DIR] [--json] [--timeout-ms N]`: the
 * capability and conformance probe against any ACP agent (engine in src/cli/probe/). The table
 * (or the JSON report) goes to stdout; progress and errors to stderr.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { colorEnabled, createProgress, stderrLogger } from '../io.js';
import { createStyle } from '../render/style.js';
import { runProbe } from '../probe/engine.js';
import { resolveProbeLaunch } from '../probe/launch.js';
import { renderTable } from '../probe/render.js';
import { DEFAULT_PROBE_TIMEOUT_MS, ProbeNotReadyError, type ProbeReport } from '../probe/types.js';
import type { CliContext } from './common.js';

/** Exit code when at least one check is broken (suggested for exit-codes.ts; see the report). */
export const PROBE_EXIT_BROKEN = EXIT.PROBE_BROKEN;

const OPTIONS = {
  agent: { type: 'string' },
  'agent-cmd': { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  keep: { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const;

export const PROBE_HELP = `Usage: talaria probe [--agent ID | --agent-cmd "CMD …"] [--cwd DIR] [--json] [--timeout-ms N]

Runs a capability and conformance probe against an ACP agent, in a scratch workspace (seeded
with notes.txt, removed afterwards): initialize and capabilities, session/new, a streamed turn,
a tool-using turn and its permissions, env reaching the agent's shell, an MCP server tool, an
image prompt, cancel, modes and model switch, list by cwd, load and resume. Every frame is
validated against the ACP JSON schema. Prints a table (check, result, evidence).

Results: works · supported (advertised, not verified) · quirk (works through a deviation
Talaria handles) · BROKEN · unsupported · not testable (the agent could not be steered into it)
· skipped.

Options:
  --agent ID            a known agent (demo, hermes, claude-code, … or one from config.json; default demo)
  --agent-cmd "CMD …"   any command that speaks ACP on stdio (split like a shell: quotes work)
  --cwd DIR             create the scratch workspace inside DIR (default: the temp folder)
  --json                print the full report as JSON instead of the table
  --timeout-ms N        limit for each step: start + initialize, each request, each turn (default ${DEFAULT_PROBE_TIMEOUT_MS})
  --keep                keep the scratch workspace
  --verbose             library logs on stderr

The probe answers the agent's permission requests "allow once" and asks it to run
\`echo "$TALARIA_PROBE_MARKER"\`: point it only at agents you would let do that.

Exit codes: ${EXIT.OK} nothing broken (unsupported is fine), ${PROBE_EXIT_BROKEN} at least one check broken,
${EXIT.NOT_READY} the agent could not start, initialize or open a session, ${EXIT.USAGE} bad usage,
${EXIT.CANCELLED} interrupted.`;

function timeoutArg(p: ReturnType<typeof parse>): number {
  const t = str(p, 'timeout-ms');
  if (t === undefined) return DEFAULT_PROBE_TIMEOUT_MS;
  const n = Number(t);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`probe: --timeout-ms must be a positive whole number of milliseconds (got '${t}')`);
  return n;
}

function dirArg(p: ReturnType<typeof parse>): string | undefined {
  const d = str(p, 'cwd');
  if (d === undefined) return undefined;
  const abs = resolve(d);
  let ok = false;
  try {
    ok = statSync(abs).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`probe: --cwd ${abs} is not a directory`);
  return abs;
}

export function probeExitCode(report: ProbeReport): number {
  if (!report.ready) return EXIT.NOT_READY;
  if (report.counts.broken > 0) return PROBE_EXIT_BROKEN;
  if (report.interrupted) return EXIT.CANCELLED;
  return EXIT.OK;
}

export async function probeCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('probe', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${PROBE_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0) throw new UsageError(`probe: unexpected argument '${p.positionals[0]}'`);
  const agent = str(p, 'agent');
  const agentCmd = str(p, 'agent-cmd');
  const timeoutMs = timeoutArg(p);
  const parentDir = dirArg(p);
  const json = flag(p, 'json');
  let launch;
  try {
    launch = await resolveProbeLaunch(
      { ...(agent !== undefined ? { agent } : {}), ...(agentCmd !== undefined ? { agentCmd } : {}) },
      { env: io.env, homeDir: homedir(), platform: process.platform },
    );
  } catch (err) {
    if (!(err instanceof ProbeNotReadyError)) throw err;
    io.stderr.write(`talaria probe: not ready: ${err.message}\n`);
    return EXIT.NOT_READY;
  }
  const tty = io.stderr.isTTY === true;
  const progress = createProgress(io.stderr, { tty, quiet: !tty });
  const abort = new AbortController();
  const off = ctx.onInterrupt(() => abort.abort());
  let report: ProbeReport;
  try {
    report = await runProbe({
      launch,
      timeoutMs,
      signal: abort.signal,
      onProgress: (s) => progress.step(s),
      logger: stderrLogger(io.stderr, flag(p, 'verbose')),
      ...(parentDir ? { parentDir } : {}),
      ...(flag(p, 'keep') ? { keepWorkspace: true } : {}),
    });
  } finally {
    off();
    progress.done();
  }
  const code = probeExitCode(report);
  if (json) io.stdout.write(`${JSON.stringify({ ...report, exitCode: code }, null, 2)}\n`);
  else io.stdout.write(renderTable(report, createStyle(colorEnabled(io.stdout, io.env)), io.stdout.columns ?? 120));
  if (!report.ready)
    io.stderr.write(`talaria probe: not ready: ${report.notReady ?? 'the agent could not be started'}\n`);
  return code;
}
