/**
 * Facts about the agents this host can run, one per provider in its registry: `{type: 'agent',
 * host, id, provider, label, version, found, ready}`, from the harness's readiness checks. Each
 * `publish()` re-checks and re-asserts only the facts that changed (retract + assert), so
 * observers see an agent become ready (after a sign-in) or go away. Owner `host`.
 */
import type { Harness } from '../harness/index.js';
import type { AgentStatus } from '../harness/types.js';
import { passable } from './clone.js';
import type { Dataspace } from './dataspace.js';

export type AgentFact = { type: 'agent'; host: string; id: string; provider: string; label: string; version: string; found: boolean; ready: boolean };

export function agentFact(hostKey: string, a: AgentStatus): AgentFact {
  return { type: 'agent', host: hostKey, id: a.providerId, provider: a.providerId, label: a.label, version: a.version ?? '', found: a.found, ready: a.ready };
}

export class AgentFacts {
  private readonly held = new Map<string, { handle: string; json: string }>();

  constructor(
    private readonly harness: Harness,
    private readonly dataspace: Dataspace,
    private readonly hostKey: string,
  ) {}

  /** Checks every agent and brings the facts up to date; resolves with the facts now asserted. */
  async publish(o: { timeoutMs?: number } = {}): Promise<AgentFact[]> {
    const all = (await this.harness.agents(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {})).map((a) => agentFact(this.hostKey, a));
    const seen = new Set<string>();
    for (const f of all) {
      seen.add(f.id);
      const json = JSON.stringify(f);
      const have = this.held.get(f.id);
      if (have?.json === json) continue;
      if (have) this.dataspace.retract('host', have.handle);
      this.held.set(f.id, { handle: this.dataspace.assert('host', passable(f)), json });
    }
    for (const [id, h] of this.held) {
      if (seen.has(id)) continue;
      this.dataspace.retract('host', h.handle);
      this.held.delete(id);
    }
    return all;
  }
}
