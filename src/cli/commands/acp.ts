/**
 * `talaria acp`: Talaria as an ACP agent on stdio, for editors (Zed, JetBrains) and any ACP
 * client. stdout carries ACP frames only; logs go to stderr. The core is src/harness/acp/.
 */
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { FlowGate } from '../../protocol/flow-gate.js';
import { LineDecoder } from '../../protocol/ndjson.js';
import { choice, flag, parse, splitCommand, str, UsageError } from '../args.js';
import { APPROVE_MODES, permissionConfig } from '../approve.js';
import { EXIT } from '../exit-codes.js';
import { ACP_HELP } from '../help.js';
import { stderrLogger } from '../io.js';
import { cliHarnessOptions } from '../runtime.js';
import { isStoreProblem, storeProblemLine } from '../store-problem.js';
import { urlAgent } from '../agent-url.js';
import { AGENT_OPTIONS, agentArgs, type CliContext } from './common.js';

const OPTIONS = {
  ...AGENT_OPTIONS,
  approve: { type: 'string' },
  'print-config': { type: 'string' },
  attach: { type: 'string' },
  token: { type: 'string' },
} as const;
const EDITORS = ['zed', 'jetbrains'] as const;

/** The launcher editors run: this Node and Talaria's bin script, by absolute path (editors have a bare PATH). */
function launcher(): { command: string; script: string } {
  return { command: process.execPath, script: fileURLToPath(new URL('../../../bin/talaria.js', import.meta.url)) };
}

/** A ready snippet: Zed's `agent_servers` entry (settings.json) or JetBrains' ~/.jetbrains/acp.json. */
export function editorConfig(editor: 'zed' | 'jetbrains', agentFlags: string[], env: NodeJS.ProcessEnv): string {
  const { command, script } = launcher();
  const args = [script, 'acp', ...agentFlags];
  const keep = Object.fromEntries(['PATH', 'TALARIA_HOME'].filter((k) => env[k]).map((k) => [k, env[k]!]));
  const entry = editor === 'zed' ? { type: 'custom', command, args, env: keep } : { command, args, env: keep };
  return JSON.stringify({ agent_servers: { Talaria: entry } }, null, 2);
}

export async function acpCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('acp', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${ACP_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0) throw new UsageError(`acp: unexpected argument '${p.positionals[0]}'`);
  const a = agentArgs('acp', p);
  const approve = choice('acp', 'approve', str(p, 'approve'), APPROVE_MODES, 'ask');
  const printFor = str(p, 'print-config');
  if (printFor !== undefined) {
    const editor = choice('acp', 'print-config', printFor, EDITORS, 'zed');
    const flags = [
      ...(a.choice.agent ? ['--agent', a.choice.agent] : []),
      ...(a.choice.agentCmd ? ['--agent-cmd', a.choice.agentCmd] : []),
      ...(a.choice.agentUrl ? ['--agent-url', a.choice.agentUrl] : []),
      ...(a.choice.profile ? ['--profile', a.choice.profile] : []),
      ...(approve !== 'ask' ? ['--approve', approve] : []),
    ];
    io.stdout.write(`${editorConfig(editor, flags, io.env)}\n`);
    return EXIT.OK;
  }
  const logger = stderrLogger(io.stderr, a.verbose);
  const attach = str(p, 'attach');
  if (attach !== undefined) {
    if (a.choice.agentCmd !== undefined || a.choice.agentUrl !== undefined)
      throw new UsageError(
        "acp: --attach uses the server's agents: pass --agent ID (one the server knows), not --agent-cmd or --agent-url",
      );
    const { acpAttach } = await import('./acp-attach.js');
    return acpAttach(
      attach,
      { token: str(p, 'token'), agent: a.choice.agent, profile: a.choice.profile, cwd: a.cwd },
      ctx,
      logger,
    );
  }
  if (str(p, 'token') !== undefined) throw new UsageError('acp: --token goes with --attach');
  // Lazy: `talaria acp --help` and --print-config stay fast.
  const [{ createHarness }, { AcpProxy, lineWriter }] = await Promise.all([
    import('../../harness/index.js'),
    import('../../harness/acp/index.js'),
  ]);
  // The editor reads our stdout at its pace: while a write waits, no agent's output is read (it
  // waits in the agent's pipe), so an editor that stalls costs no memory here.
  const gate = new FlowGate();
  let harness;
  /** The first thing the store could not keep: the editor got its answers, but the exit says so. */
  let lost: unknown;
  try {
    harness = createHarness({
      ...cliHarnessOptions(io.env),
      logger,
      onRecordingError: (e) => (lost ??= isStoreProblem(e.error.cause) ? e.error.cause : e.error),
      host: { setupTimeoutMs: a.setupTimeoutMs, permission: permissionConfig(approve), flowGate: gate },
    });
  } catch (err) {
    io.stderr.write(`talaria acp: ${isStoreProblem(err) ? storeProblemLine(err) : (err as Error).message}\n`);
    return EXIT.NOT_READY;
  }
  let provider: string;
  if (a.choice.agentUrl !== undefined) {
    provider = urlAgent(harness, a.choice.agentUrl, io.env);
  } else if (a.choice.agentCmd !== undefined) {
    const words = splitCommand(a.choice.agentCmd);
    if (words.length === 0) throw new UsageError('acp: --agent-cmd is empty');
    provider = harness.commandAgent(words[0]!, words.slice(1), a.choice.agentCmd.trim()).id;
  } else if (a.choice.agent !== undefined) {
    if (!harness.registry.has(a.choice.agent)) {
      const known = harness.registry
        .list()
        .map((x) => x.id)
        .join(', ');
      await harness.close();
      throw new UsageError(`acp: unknown agent '${a.choice.agent}' (known: ${known})`);
    }
    provider = a.choice.agent;
  } else {
    provider = (
      await harness.pickAgent({ workspace: a.cwd, ...(a.choice.profile ? { profile: a.choice.profile } : {}) })
    ).provider;
  }
  // `talaria probe` through the proxy checks that its marker reaches the agent's shell: a named,
  // harmless variable (Talaria passes no other ambient env to the agent).
  const chosen = harness.registry.get(provider);
  if (chosen && io.env.TALARIA_PROBE_MARKER)
    harness.registry.add({
      ...chosen,
      env: { ...chosen.env, inherit: [...chosen.env.inherit, 'TALARIA_PROBE_MARKER'] },
    });
  logger.info('talaria acp: serving', { provider, cwd: a.cwd, home: harness.home || homedir() });

  const out = lineWriter((chunk) => {
    if (io.stdout.write(chunk) || gate.held || !io.stdout.once) return;
    gate.hold();
    io.stdout.once('drain', () => gate.release());
  });
  const proxy = new AcpProxy({
    harness,
    provider,
    ...(a.choice.profile ? { profile: a.choice.profile } : {}),
    cwd: a.cwd,
    version: ctx.version,
    logger,
    write: (msg) => out(JSON.stringify(msg)),
    writeLine: out,
  });
  const decoder = new LineDecoder({
    onLine: (line) => proxy.receiveLine(line),
    onOversize: (o) => logger.error('a line from the editor was too long and was dropped', { bytes: o.bytes }),
  });
  // Until the editor closes our stdin (or a signal): then sessions close and the store keeps them.
  const offs: (() => void)[] = [];
  await new Promise<void>((resolve) => {
    offs.push(
      ctx.onTerminate(() => resolve()),
      ctx.onInterrupt(() => resolve()),
    );
    io.stdin.on('data', (c: Buffer | string) => decoder.push(typeof c === 'string' ? Buffer.from(c) : c));
    io.stdin.on('end', () => resolve());
    io.stdin.on('close', () => resolve());
    io.stdin.on('error', () => resolve());
  });
  for (const off of offs) off();
  await proxy.close();
  await harness.close();
  if (lost === undefined) return EXIT.OK;
  io.stderr.write(`talaria acp: ${storeProblemLine(lost)}\n`);
  return EXIT.NOT_READY;
}
