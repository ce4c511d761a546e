/**
 * Start-up through Talaria (`AcpClient.spawn` → initialize → `newSession`) against the bare SDK on
 * the same agent, measured in PAIRS: each pair runs both paths back to back, alternating which
 * goes first; each pair is a sample, and the overhead is the median of the per-pair ratios. Spawning a Node agent costs
 * hundreds of ms and swings with the machine's load; pairing cancels most of that swing.
 */
import { AcpClient } from '../src/session/client.js';
import { ROOT } from './flood-driver.js';
import { sdkStartupOnce, withStartupEnv } from './startup.js';

/** One spawn → initialize → session/new through Talaria, in ms (close not included). */
export async function talariaStartupOnce(
  command: readonly string[],
  root = ROOT,
  env: Record<string, string> = {},
): Promise<number> {
  const [cmd, ...args] = command;
  if (!cmd) throw new Error('empty agent command');
  const t0 = performance.now();
  const client = await AcpClient.spawn({ command: cmd, args, cwd: root, env }, { fs: false, terminal: false });
  try {
    await client.newSession({ cwd: root });
    return performance.now() - t0;
  } finally {
    await client.close();
  }
}

/** One pair: Talaria and the SDK started back to back. */
export interface StartupPair {
  ms: number;
  sdkMs: number;
  /** talaria / sdk. */
  pairRatio: number;
  /** Client-side CPU (user + system) of each start-up: what each client itself spends. */
  cpuMs: number;
  sdkCpuMs: number;
}

/** Wall ms and this process's CPU ms of one start-up. */
async function timed(run: () => Promise<number>): Promise<{ ms: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const ms = await run();
  const c = process.cpuUsage(c0);
  return { ms, cpu: (c.user + c.system) / 1000 };
}

export async function runPairedStartup(command: readonly string[], pairs: number, root = ROOT): Promise<StartupPair[]> {
  return withStartupEnv(async (env) => {
    // Talaria passes only allow-listed variables to a child: hand it the demo home explicitly.
    const home = env['TALARIA_DEMO_HOME'];
    const extra: Record<string, string> = home ? { TALARIA_DEMO_HOME: home } : {};
    const talaria = () => timed(() => talariaStartupOnce(command, root, extra));
    const sdk = () => timed(() => sdkStartupOnce(command, root, env));
    const out: StartupPair[] = [];
    for (let i = 0; i < pairs; i++) {
      let a: { ms: number; cpu: number };
      let b: { ms: number; cpu: number };
      if (i % 2 === 0) {
        a = await talaria();
        b = await sdk();
      } else {
        b = await sdk();
        a = await talaria();
      }
      out.push({ ms: a.ms, sdkMs: b.ms, pairRatio: a.ms / b.ms, cpuMs: a.cpu, sdkCpuMs: b.cpu });
    }
    return out;
  });
}
