/**
 * Starting one agent process for a slot, with the quirk set that follows the agent: the client
 * capabilities of `initialize` from the launch's guess (or what an earlier process of this slot
 * said), then the set from what the agent says. An agent that needs other capabilities is closed
 * (with its whole process group) and started once more before any session exists
 * (providers/quirks/start.ts).
 */
import { AcpClient } from '../session/client.js';
import type { Logger } from '../protocol/types.js';
import type { ClientCapFields } from '../providers/launch.js';
import { startWithQuirks, type QuirkChoice, type StartedWithQuirks } from '../providers/quirks/index.js';
import type { Located, Provider } from '../providers/types.js';
import type { AgentKey } from './events.js';
import type { Generation } from './generation.js';
import type { SlotConfig } from './parts.js';
import { killGroup } from './tree.js';

export interface StartDeps {
  key: AgentKey;
  cfg: SlotConfig;
  provider: Provider;
  logger: Logger;
  /** The env of the commands the agent runs through terminal/* (never the agent's own credentials), carrying its process's tag. */
  terminalEnv(tag: string): Record<string, string>;
  nextGeneration(): Generation;
  /** A process that never answered initialize (counted as a crash by the slot). */
  crashedBeforeInit(gen: Generation, e: unknown): void;
}

export async function startProcess(
  d: StartDeps,
  located: Located,
  env: Record<string, string>,
  learned: QuirkChoice | undefined,
): Promise<{ gen: Generation; started: StartedWithQuirks }> {
  const { key, cfg } = d;
  let gen!: Generation;
  const started = await startWithQuirks({
    provider: d.provider,
    command: located.command,
    args: located.args,
    ...(learned ? { learned } : {}),
    spawn: (caps) => {
      gen = d.nextGeneration();
      return startClient(d, gen, located, env, caps);
    },
    // Started with the wrong client capabilities, before any session: gone without a trace.
    discard: async (client) => {
      const pid = client.connection.process?.pid;
      await client.close();
      if (pid !== undefined) await killGroup(pid, cfg.terminateGraceMs);
    },
  });
  if (started.restartedFrom) {
    d.logger.info('agent restarted with the client capabilities its quirk set needs', {
      provider: key.provider,
      guessed: started.restartedFrom.choice.set.id,
      quirks: started.quirks.choice.set.id,
    });
  }
  return { gen, started };
}

/** One process, initialized with `caps`. */
async function startClient(
  d: StartDeps,
  gen: Generation,
  located: Located,
  env: Record<string, string>,
  caps: ClientCapFields,
): Promise<AcpClient> {
  const { key, cfg } = d;
  try {
    return await AcpClient.spawn(
      { command: located.command, args: located.args, cwd: key.workspace, env, tag: gen.tag },
      {
        logger: d.logger,
        ...caps,
        terminalEnv: d.terminalEnv(gen.tag),
        onFrame: (f) => {
          if (f.dir === 'agent->client') gen.lastActivity = Date.now();
          cfg.onFrame?.(key, f);
        },
        onProtocolError: (e) => {
          gen.lastActivity = Date.now();
          cfg.onProtocolError?.(key, e);
        },
        setupTimeoutMs: cfg.setupTimeoutMs,
        ...(cfg.permission ? { permission: cfg.permission } : {}),
        ...(cfg.onPermissionDecision ? { onPermissionDecision: cfg.onPermissionDecision } : {}),
        ...(cfg.onRule ? { onRule: cfg.onRule } : {}),
        ...(cfg.flowGate ? { gate: cfg.flowGate } : {}),
      },
    );
  } catch (e) {
    d.crashedBeforeInit(gen, e);
    throw e;
  }
}
