/**
 * What `talaria acp` tells the editor about a session and itself, spec-current whatever dialect
 * the agent speaks: configOptions synthesized from legacy models/modes (and the legacy fields
 * from configOptions, for editors that only read those), capabilities Talaria can honour.
 */
import type { Catalog, CatalogSelector } from '../../session/catalog.js';
import type { Entry, Thread } from '../../thread/types.js';
import { asRecord, recordOrEmpty } from '../../os/record.js';

function selectOption(
  s: CatalogSelector,
  fallbackId: string,
  fallbackName: string,
): Record<string, unknown> | undefined {
  if (s.source === 'config' && s.raw) return s.raw as Record<string, unknown>;
  if (s.options.length === 0) return undefined;
  const current = s.currentId ?? s.options.find((o) => o.current)?.id ?? s.options[0]!.id;
  return {
    id: s.configId ?? fallbackId,
    name: s.name ?? fallbackName,
    category: fallbackId,
    type: 'select',
    currentValue: current,
    options: s.options.map((o) => ({
      value: o.id,
      name: o.label,
      ...(o.description ? { description: o.description } : {}),
    })),
  };
}

/** The session's options as `configOptions` (the agent's own when it has them). */
export function configOptions(c: Catalog): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const m = c.mode && selectOption(c.mode, 'mode', 'Mode');
  const model = c.model && selectOption(c.model, 'model', 'Model');
  if (m) out.push(m);
  if (model) out.push(model);
  for (const o of c.others) if (o.source === 'config' && o.raw) out.push(o.raw as Record<string, unknown>);
  return out;
}

/** session/new|load|resume result fields: configOptions, plus legacy modes/models for older editors. */
export function setupFields(c: Catalog): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const opts = configOptions(c);
  if (opts.length > 0) out.configOptions = opts;
  const current = (s: CatalogSelector) => s.currentId ?? s.options.find((o) => o.current)?.id ?? s.options[0]?.id;
  if (c.mode && c.mode.options.length > 0) {
    out.modes = {
      currentModeId: current(c.mode),
      availableModes: c.mode.options.map((o) => ({
        id: o.id,
        name: o.label,
        ...(o.description ? { description: o.description } : {}),
      })),
    };
  }
  if (c.model && c.model.options.length > 0) {
    out.models = {
      currentModelId: current(c.model),
      availableModels: c.model.options.map((o) => ({
        modelId: o.id,
        name: o.label,
        ...(o.description ? { description: o.description } : {}),
      })),
    };
  }
  return out;
}

/** Which selector a `session/set_config_option` id names ('model', 'mode' or the agent's own option). */
export function selectorFor(c: Catalog, configId: string): 'model' | 'mode' | undefined {
  for (const k of ['model', 'mode'] as const) {
    const s = c[k];
    if (s && (s.configId === configId || (!s.configId && configId === k))) return k;
  }
  return undefined;
}

/**
 * The capabilities advertised to the editor: only what Talaria can honour. Prompt content and MCP
 * transports are the agent's (Talaria cannot add them); load/list/resume/close Talaria does itself
 * (from its store when the agent cannot), so they are always on.
 */
export function editorCapabilities(agent: Record<string, unknown> | undefined): Record<string, unknown> {
  const a = recordOrEmpty(agent);
  const pick = (from: unknown, keys: string[]) =>
    Object.fromEntries(keys.filter((k) => recordOrEmpty(from)[k] === true).map((k) => [k, true]));
  return {
    loadSession: true,
    promptCapabilities: pick(a.promptCapabilities, ['image', 'audio', 'embeddedContext']),
    mcpCapabilities: pick(a.mcpCapabilities, ['http', 'sse']),
    sessionCapabilities: { list: {}, resume: {}, close: {} },
    ...(a._meta !== undefined ? { _meta: a._meta } : {}),
  };
}

/** The stored thread as `session/update`s (session/load from the editor: Talaria replays, the agent need not). */
export function replayUpdates(entries: readonly Entry[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const e of entries) {
    switch (e.kind) {
      case 'user_message':
      case 'assistant_message':
      case 'thought': {
        const kind =
          e.kind === 'user_message'
            ? 'user_message_chunk'
            : e.kind === 'thought'
              ? 'agent_thought_chunk'
              : 'agent_message_chunk';
        const blocks = [...(e.text !== '' ? [{ type: 'text', text: e.text }] : []), ...e.blocks];
        for (const content of blocks) out.push({ sessionUpdate: kind, content, messageId: e.messageId ?? e.id });
        break;
      }
      case 'tool_call':
        out.push({
          sessionUpdate: 'tool_call',
          toolCallId: e.toolCallId,
          title: e.title,
          status: acpStatus(e.status),
          ...(e.toolKind ? { kind: e.toolKind } : {}),
          ...(e.content.length > 0 ? { content: e.content } : {}),
          ...(e.locations.length > 0 ? { locations: e.locations } : {}),
          ...(e.rawInput !== undefined ? { rawInput: e.rawInput } : {}),
          ...(e.rawOutput !== undefined ? { rawOutput: e.rawOutput } : {}),
        });
        break;
      case 'notice':
        out.push(noticeUpdate(e.level, e.code, e.text, e.id));
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * What the agent said about the session before an editor came (a warm session opened ahead, a
 * live one joined): its commands, mode, options and usage, from the session's own state.
 */
export function stateUpdates(t: Thread, catalog: Catalog): { sessionUpdate: string; [k: string]: unknown }[] {
  const out: { sessionUpdate: string; [k: string]: unknown }[] = [];
  if (t.availableCommands.length > 0)
    out.push({ sessionUpdate: 'available_commands_update', availableCommands: t.availableCommands });
  if (t.currentModeId !== undefined) out.push({ sessionUpdate: 'current_mode_update', currentModeId: t.currentModeId });
  const options = t.configOptions !== undefined ? configOptions(catalog) : [];
  if (options.length > 0) out.push({ sessionUpdate: 'config_option_update', configOptions: options });
  const { used, size, cost } = t.context;
  if (typeof used === 'number' && typeof size === 'number') {
    const c = asRecord(cost);
    const money =
      c && typeof c.amount === 'number' && typeof c.currency === 'string'
        ? { cost: { amount: c.amount, currency: c.currency } }
        : {};
    out.push({ sessionUpdate: 'usage_update', used, size, ...money });
  }
  return out;
}

/** Talaria's local `cancelled` is not an ACP status: a call a cancel settled shows as failed. */
export function acpStatus(s: string): string {
  return s === 'cancelled' ? 'failed' : s;
}

/** A Talaria notice (overflow recovered, agent respawned…) as a message the editor shows. */
export function noticeUpdate(
  level: string,
  code: string,
  text: string,
  messageId: string,
): { sessionUpdate: string; [k: string]: unknown } {
  return {
    sessionUpdate: 'agent_message_chunk',
    messageId,
    content: { type: 'text', text: `\n[talaria ${level}] ${text}\n` },
    _meta: { talaria: { notice: { level, code } } },
  };
}
