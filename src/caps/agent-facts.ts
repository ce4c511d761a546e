/**
 * Facts about the agents this host can run, one per provider in its registry: `{type: 'agent',
 * host, id, provider, label, version, found, ready, model, models, tools}`. `found`/`ready` come
 * from the harness's readiness checks; `model`, `models` and `tools` from what a running process of
 * that agent reported (agent-report.ts) — null until one has, never guessed. Each change re-asserts
 * only the fact that changed (retract + assert), so observers see an agent become ready (after a
 * sign-in), learn its model, or go away. Owner `host`.
 */
import type { Harness } from '../harness/index.js';
import type { AgentStatus } from '../harness/types.js';
import { AgentReports, type AgentReport, type AgentTools } from './agent-report.js';
import { passable } from './clone.js';
import type { Dataspace } from './dataspace.js';

export type { AgentTools } from './agent-report.js';

export type AgentFact = {
  type: 'agent';
  host: string;
  id: string;
  provider: string;
  label: string;
  version: string;
  found: boolean;
  ready: boolean;
  /** The current model of the last catalog a process of this agent reported; null: none reported yet. */
  model: string | null;
  /** The model ids of that catalog (empty when none reported yet). */
  models: string[];
  /** What the agent said a client can use; null: no process of it has reported yet. */
  tools: AgentTools | null;
};

export function agentFact(hostKey: string, a: AgentStatus, r?: AgentReport): AgentFact {
  return {
    type: 'agent',
    host: hostKey,
    id: a.providerId,
    provider: a.providerId,
    label: a.label,
    version: a.version ?? '',
    found: a.found,
    ready: a.ready,
    model: r?.model ?? null,
    models: r?.models ?? [],
    tools: r?.tools ?? null,
  };
}

export class AgentFacts {
  private readonly held = new Map<string, { handle: string; json: string; status: AgentStatus }>();
  private readonly reports: AgentReports;

  constructor(
    private readonly harness: Harness,
    private readonly dataspace: Dataspace,
    private readonly hostKey: string,
  ) {
    this.reports = new AgentReports(harness, (provider) => this.reassert(provider));
  }

  /** Checks every agent and brings the facts up to date; resolves with the facts now asserted. */
  async publish(o: { timeoutMs?: number } = {}): Promise<AgentFact[]> {
    const statuses = await this.harness.agents(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {});
    const seen = new Set<string>();
    const all: AgentFact[] = [];
    for (const a of statuses) {
      seen.add(a.providerId);
      all.push(this.put(a));
    }
    for (const [id, h] of this.held) {
      if (seen.has(id)) continue;
      this.dataspace.retract('host', h.handle);
      this.held.delete(id);
    }
    return all;
  }

  close(): void {
    this.reports.close();
  }

  /** A process of `provider` reported a catalog or commands: its fact (when published) is re-asserted. */
  private reassert(provider: string): void {
    const have = this.held.get(provider);
    if (have) this.put(have.status);
  }

  private put(a: AgentStatus): AgentFact {
    const f = agentFact(this.hostKey, a, this.reports.get(a.providerId));
    const json = JSON.stringify(f);
    const have = this.held.get(f.id);
    if (have?.json === json) return f;
    if (have) this.dataspace.retract('host', have.handle);
    this.held.set(f.id, { handle: this.dataspace.assert('host', passable(f)), json, status: a });
    return f;
  }
}
