/**
 * What running processes of each agent reported, for its fact: the model catalog the warm pool
 * keeps (a spare's, or any session's opened in a workspace), the slash commands of that session
 * (`available_commands_update`, which may arrive after the catalog: followed until it closes) and
 * the prompt and MCP capabilities the process declared in `initialize`. Per provider, the latest
 * report wins (catalogs are per workspace; the fact is per agent).
 */
import type { Harness } from '../harness/index.js';
import type { AgentTarget } from '../host/host.js';
import type { Catalog } from '../session/catalog.js';
import type { Session } from '../session/session.js';

/**
 * What a client can use of an agent: its slash commands (names, without the slash), the prompt
 * content it accepts beyond text (`image`, `audio`, `embeddedContext`) and the MCP transports it
 * takes beyond stdio (`http`, `sse`) — each exactly as the agent declared it.
 */
export type AgentTools = { commands: string[]; prompt: string[]; mcp: string[] };

export type AgentReport = { model: string | null; models: string[]; tools: AgentTools };

const trueKeys = (v: unknown): string[] =>
  typeof v === 'object' && v !== null
    ? Object.entries(v)
        .filter(([, x]) => x === true)
        .map(([k]) => k)
        .sort()
    : [];

const commandNames = (cmds: unknown[]): string[] =>
  cmds.flatMap((c) =>
    typeof c === 'object' && c !== null && typeof (c as { name?: unknown }).name === 'string'
      ? [(c as { name: string }).name]
      : [],
  );

export class AgentReports {
  private readonly reports = new Map<string, AgentReport>();
  /** The session each provider's commands are followed on (the latest one reported). */
  private readonly follow = new Map<string, () => void>();
  private readonly off: () => void;

  constructor(
    private readonly harness: Harness,
    private readonly changed: (provider: string) => void,
  ) {
    this.off = harness.warm.onCatalog((t, catalog, from) => this.report(t, catalog, from));
  }

  get(provider: string): AgentReport | undefined {
    return this.reports.get(provider);
  }

  close(): void {
    this.off();
    for (const f of this.follow.values()) f();
    this.follow.clear();
  }

  private report(t: AgentTarget, catalog: Catalog, from: Session | undefined): void {
    const key = (from && this.harness.host.targetOf(from)) ?? t;
    const caps = this.harness.connectionInfo(key)?.agentCapabilities ?? {};
    const commands = from
      ? commandNames(from.thread.availableCommands)
      : (this.reports.get(t.provider)?.tools.commands ?? []);
    this.reports.set(t.provider, {
      model: catalog.model?.currentId ?? null,
      models: catalog.model?.options.map((o) => o.id) ?? [],
      tools: { commands, prompt: trueKeys(caps.promptCapabilities), mcp: trueKeys(caps.mcpCapabilities) },
    });
    if (from) this.followCommands(t.provider, from);
    this.changed(t.provider);
  }

  private followCommands(provider: string, s: Session): void {
    this.follow.get(provider)?.();
    const off = s.subscribe((e) => {
      if (e.type === 'session.closed' || (e.type === 'session.state' && e.state === 'closed')) {
        off();
        if (this.follow.get(provider) === off) this.follow.delete(provider);
        return;
      }
      if (e.type !== 'commands.updated') return;
      const r = this.reports.get(provider);
      if (!r) return;
      this.reports.set(provider, { ...r, tools: { ...r.tools, commands: commandNames(e.commands) } });
      this.changed(provider);
    });
    this.follow.set(provider, off);
  }
}
