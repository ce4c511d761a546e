/** `--agent-url URL`: an agent over WebSocket as an ad-hoc agent (providers/remote.ts), its token in the pipe's env. */
import type { Harness, HarnessExtras } from '../harness/index.js';
import { remoteLaunch } from '../providers/remote.js';
import { UsageError } from './args.js';

/** Registers the agent at `url` and returns its provider id; a URL the rules refuse is a usage error. */
export function urlAgent(
  h: Pick<Harness, 'registry'> & Pick<HarnessExtras, 'commandAgent'>,
  url: string,
  env: NodeJS.ProcessEnv,
): string {
  let r;
  try {
    r = remoteLaunch(url, { what: '--agent-url', envToken: env.TALARIA_TOKEN });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const p = h.commandAgent(r.command, r.args, r.label);
  h.registry.add({ ...p, env: { ...p.env, set: { ...p.env.set, ...r.env } } });
  return p.id;
}
