/**
 * The ACP method table of Hermes 0.18.2 (acp_adapter/server.py + the Python SDK router):
 * session lifecycle, list, modes/models, and the quirks of each (load of an unknown id
 * answers {}, resume of one silently creates a session, fork answers {"sessionId": ""},
 * set_model drops MCP servers, close is a no-op, delete is -32601, `_ext` → null).
 */
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildCatalog, resolveModel } from './catalog.js';
import { NO_PROVIDER } from './config.js';
import { handleCancel, handlePrompt, type PromptDeps } from './prompt.js';
import { replayUpdates } from './replay.js';
import { internalError, RpcError, type Reply } from './rpc.js';
import {
  hermesMeta,
  newRuntime,
  persist,
  sendUpdate,
  sendUsageUpdate,
  sleep,
  type Ctx,
  type McpServerSpec,
  type Runtime,
} from './runtime.js';
import { availableCommandsUpdate } from './slash.js';
import { listTitle, pyIso, type SessionRecord } from './state.js';
import { validate } from './validate.js';

type P = Record<string, unknown>;

const MODES = [
  { description: 'Ask before edits.', id: 'default', name: 'Default' },
  {
    description: 'Auto-allow workspace and /tmp edits; still asks for sensitive paths.',
    id: 'accept_edits',
    name: 'Accept Edits',
  },
  { description: 'Auto-allow file edits for this session except sensitive paths.', id: 'dont_ask', name: "Don't Ask" },
];
const POLICY_TO_MODE: Record<string, string> = {
  ask: 'default',
  workspace_session: 'accept_edits',
  session: 'dont_ask',
};

export class HermesAgent {
  private readonly deps: PromptDeps;

  constructor(private readonly ctx: Ctx) {
    this.deps = { runtime: (id) => this.runtime(id), switchModel: (rt, id) => this.switchModel(rt, id) };
  }

  /** In memory, else transparently restored from state.db (needs a provider, like _make_agent). */
  private runtime(id: string): Runtime | null {
    const live = this.ctx.runtimes.get(id);
    if (live) return live;
    const rec = this.ctx.store.get(id);
    if (!rec) return null;
    if (!this.ctx.cfg.provider) throw internalError(NO_PROVIDER);
    const rt = newRuntime(rec);
    this.ctx.runtimes.set(id, rt);
    return rt;
  }

  /** A fork copies the source agent's live history (merged failed prompts included). */
  private create(cwd: string, from?: Runtime): Runtime {
    if (!this.ctx.cfg.provider) throw internalError(NO_PROVIDER);
    const now = Date.now();
    const rec: SessionRecord = {
      id: randomUUID(),
      source: 'acp',
      cwd,
      title: null,
      provider: from?.rec.provider ?? this.ctx.cfg.provider,
      model: from?.rec.model ?? this.ctx.cfg.model,
      parentId: from?.rec.id ?? null,
      startedAt: now,
      lastActive: now,
      toolSeq: from?.rec.toolSeq ?? 0,
      history: from ? structuredClone(from.history) : [],
    };
    this.ctx.store.put(rec);
    const rt = newRuntime(rec);
    this.ctx.runtimes.set(rec.id, rt);
    return rt;
  }

  private register(rt: Runtime, servers: unknown): void {
    if (!Array.isArray(servers)) return;
    for (const s of servers as McpServerSpec[]) rt.mcp.set(s.name, s);
  }

  private models(rt: Runtime) {
    return buildCatalog(rt.rec.provider, rt.rec.model, this.ctx.settings.bigCatalog, this.ctx.settings.endpointModels);
  }

  /** Cold start: building the process's first agent is slow, later ones less so (settings). */
  private coldBuild(): Promise<void> {
    const first = this.ctx.started.agents++ === 0;
    const ms = first ? this.ctx.settings.newDelayMs : this.ctx.settings.nextNewDelayMs;
    if (ms > 0)
      this.ctx.log(
        `INFO acp_adapter.session: cold start: building the ${first ? 'first' : 'next'} agent takes ${ms} ms`,
      );
    return sleep(ms);
  }

  private modes(rt: Runtime) {
    return { availableModes: MODES, currentModeId: rt.mode };
  }

  /** ACU + usage_update; Hermes schedules them, so they race the response (default: after). */
  private reply(result: unknown, rt: Runtime, usage = true): Reply {
    const send = () => {
      sendUpdate(this.ctx, rt.acpId, availableCommandsUpdate());
      if (usage) sendUsageUpdate(this.ctx, rt);
    };
    if (this.ctx.settings.updatesFirst) {
      send();
      return { result };
    }
    return { result, after: send };
  }

  private switchModel(rt: Runtime, modelId: string): { provider: string; model: string } {
    const choice = resolveModel(modelId, rt.rec, this.ctx.settings.bigCatalog, this.ctx.settings.endpointModels);
    if (this.ctx.settings.v21 && !choice.known) {
      throw new RpcError(-32602, 'Invalid params', {
        details: `Model '${modelId}' is not available for any configured provider`,
      });
    }
    rt.rec.provider = choice.provider;
    rt.rec.model = choice.model;
    persist(this.ctx, rt, false);
    // A new AIAgent: cumulative usage restarts, the system prompt is rebuilt; ≤0.20 also
    // loses the session's MCP tools (the server process itself keeps running).
    rt.usage = { input: 0, output: 0 };
    rt.promptBuilt = false;
    if (!this.ctx.settings.v21) rt.mcp.clear();
    return choice;
  }

  private list(p: P): Reply {
    const norm = (c: string) => {
      try {
        return realpathSync(resolve(c));
      } catch {
        return resolve(c);
      }
    };
    const want = typeof p.cwd === 'string' ? norm(p.cwd) : null;
    let recs = this.ctx.store
      .all()
      .filter((r) => r.source === 'acp' && r.history.length > 0 && (!want || norm(r.cwd) === want))
      .sort((a, b) => b.lastActive - a.lastActive);
    if (typeof p.cursor === 'string' && p.cursor) {
      const i = recs.findIndex((r) => r.id === p.cursor);
      recs = i < 0 ? [] : recs.slice(i + 1);
    }
    const page = recs.slice(0, this.ctx.settings.listPage);
    const result: P = {
      sessions: page.map((r) => ({ cwd: r.cwd, sessionId: r.id, title: listTitle(r), updatedAt: pyIso(r.lastActive) })),
    };
    if (recs.length > page.length && page.length) result.nextCursor = page[page.length - 1]!.id;
    return { result };
  }

  private replay(rt: Runtime): void {
    for (const u of replayUpdates(rt.history, this.ctx.settings.v21)) sendUpdate(this.ctx, rt.acpId, u);
  }

  private initialize(): Reply {
    const { provider } = this.ctx.cfg;
    const setup = {
      args: ['--setup'],
      description:
        "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
      id: 'hermes-setup',
      name: 'Configure Hermes provider',
      type: 'terminal',
    };
    const authMethods = provider
      ? [
          {
            description: `Authenticate Hermes using the currently configured ${provider} runtime credentials.`,
            id: provider,
            name: `${provider} runtime credentials`,
          },
          setup,
        ]
      : [setup];
    return {
      result: {
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true },
          sessionCapabilities: { fork: {}, list: {}, resume: {} },
        },
        agentInfo: { name: 'hermes-agent', version: this.ctx.settings.version },
        authMethods,
        protocolVersion: 1,
      },
    };
  }

  async request(method: string, params: unknown): Promise<Reply> {
    if (method.startsWith('_')) return { result: null };
    const p = validate(method, params);
    const id = String(p.sessionId ?? '');
    switch (method) {
      case 'initialize':
        return this.initialize();
      case 'authenticate':
        return { result: {} };
      case 'session/new': {
        if (!this.ctx.cfg.provider) throw internalError(NO_PROVIDER);
        await this.coldBuild();
        const rt = this.create(String(p.cwd));
        this.register(rt, p.mcpServers);
        this.ctx.log(`INFO acp_adapter.server: New session ${rt.rec.id} (cwd=${rt.rec.cwd})`);
        return this.reply(
          { _meta: hermesMeta(this.ctx, rt), models: this.models(rt), modes: this.modes(rt), sessionId: rt.rec.id },
          rt,
        );
      }
      case 'session/load':
      case 'session/resume': {
        let rt = this.runtime(id);
        let fresh = false;
        if (rt || method === 'session/resume') await this.coldBuild();
        if (!rt) {
          if (method === 'session/load') return { result: {} };
          rt = this.create(String(p.cwd)); // resume of an unknown id silently creates one
          fresh = true;
        }
        rt.rec.cwd = String(p.cwd);
        persist(this.ctx, rt, false);
        this.register(rt, p.mcpServers);
        if (!fresh) this.replay(rt);
        return this.reply({ _meta: hermesMeta(this.ctx, rt), models: this.models(rt), modes: this.modes(rt) }, rt);
      }
      case 'session/fork': {
        const src = this.runtime(id);
        if (!src) return { result: { sessionId: '' } };
        await this.coldBuild();
        const rt = this.create(String(p.cwd), src);
        this.register(rt, p.mcpServers);
        return this.reply({ models: this.models(rt), modes: this.modes(rt), sessionId: rt.rec.id }, rt, false);
      }
      case 'session/list':
        return this.list(p);
      case 'session/prompt':
        return handlePrompt(this.ctx, this.deps, id, p.prompt as Array<Record<string, unknown>>);
      case 'session/set_mode': {
        const rt = this.runtime(id);
        if (rt) rt.mode = MODES.some((m) => m.id === p.modeId) ? String(p.modeId) : 'default';
        return { result: {} };
      }
      case 'session/set_model': {
        const rt = this.runtime(id);
        if (!rt) return { result: {} };
        if (this.ctx.settings.v21 && rt.running) throw internalError('Session is busy');
        this.switchModel(rt, String(p.modelId));
        return { result: {} };
      }
      case 'session/set_config_option': {
        const rt = this.runtime(id);
        if (rt && p.configId === 'edit_approval_policy') rt.mode = POLICY_TO_MODE[String(p.value)] ?? 'default';
        return { result: rt ? { configOptions: [] } : {} };
      }
      case 'session/close':
        return { result: {} };
      default:
        throw new RpcError(-32601, 'Method not found', { method });
    }
  }

  notification(method: string, params: unknown): void {
    if (method !== 'session/cancel') return;
    const p = params && typeof params === 'object' ? (params as P) : {};
    if (typeof p.sessionId === 'string') handleCancel(this.ctx, p.sessionId);
  }
}
