/** Rows for initialize, the advertised capabilities, and session/new (the engine runs the requests). */
import type { AgentCapabilitiesView } from '../../protocol/capabilities.js';
import type { Catalog, CatalogSelector } from '../../session/catalog.js';
import { plural, result, short } from './context.js';
import { brief, isRequest, isResponseTo, kindOf, ms, type Recorder } from './recorder.js';
import type { CheckResult } from './types.js';

export function initializeRow(caps: AgentCapabilitiesView, elapsedMs: number, rec: Recorder): CheckResult {
  const info = caps.agentInfo;
  const who = info
    ? `${info.name}${info.version ? ` ${info.version}` : ''}${info.title ? ` ("${info.title}")` : ''}`
    : 'no agentInfo';
  const req = rec.frames.find((r) => isRequest(r, 'initialize'));
  const res = req ? rec.frames.find((r) => isResponseTo(r, req)) : undefined;
  const evidence = [req, res].filter((r) => r !== undefined).map((r) => brief(r!, 400));
  const data = { protocolVersion: caps.protocolVersion, agentInfo: info, timeMs: Math.round(elapsedMs) };
  if (caps.protocolVersion !== 1) {
    return result(
      'initialize',
      'initialize',
      'broken',
      `protocolVersion ${String(caps.protocolVersion)} (Talaria speaks 1); ${who}`,
      evidence,
      data,
    );
  }
  return result(
    'initialize',
    'initialize',
    'works',
    `protocol 1; ${who}; spawn + initialize ${ms(elapsedMs)}`,
    evidence,
    data,
  );
}

export function capabilitiesRow(caps: AgentCapabilitiesView): CheckResult {
  const raw = caps.raw.agentCapabilities ?? {};
  const session = (['list', 'resume', 'fork', 'close', 'delete'] as const).filter((f) => caps.supportsSession(f));
  const prompt = [
    caps.promptImage && 'image',
    caps.promptAudio && 'audio',
    caps.promptEmbeddedContext && 'embeddedContext',
  ].filter(Boolean) as string[];
  const mcp = ['stdio', caps.mcpHttp && 'http', caps.mcpSse && 'sse'].filter(Boolean) as string[];
  const auth = caps.authMethods.map((m) => String((m as { id?: unknown }).id ?? '?'));
  const parts = [
    `load ${caps.supportsLoad ? 'yes' : 'no'}`,
    `session: ${session.length ? session.join(', ') : 'none'}`,
    `prompt: text${prompt.length ? `, ${prompt.join(', ')}` : ''}`,
    `MCP: ${mcp.join(', ')}`,
    `auth: ${auth.length ? auth.join(', ') : 'none'}`,
  ];
  return result(
    'capabilities',
    'capabilities',
    'supported',
    parts.join('; '),
    [`agentCapabilities ${short(raw, 400)}`, `authMethods ${short(caps.authMethods, 400)}`],
    {
      loadSession: caps.supportsLoad,
      session,
      prompt,
      mcp,
      authMethods: auth,
    },
  );
}

function dialect(sel: CatalogSelector | undefined, kind: string): string | undefined {
  if (!sel) return undefined;
  const how =
    sel.source === 'config'
      ? `configOptions "${sel.configId ?? kind}"`
      : `legacy ${kind === 'model' ? 'models' : 'modes'}`;
  return `${how} (${plural(sel.options.length, 'option')}, current ${sel.currentId ?? '?'})`;
}

export function sessionNewRow(o: {
  elapsedMs: number;
  sessionId: string;
  catalog: Catalog;
  rec: Recorder;
  from: number;
  mcpNote?: string;
}): CheckResult {
  const { rec } = o;
  const frames = rec.slice(o.from);
  const req = frames.find((r) => isRequest(r, 'session/new'));
  const res = req ? [...frames].reverse().find((r) => isResponseTo(r, req)) : undefined;
  const early = res ? frames.filter((r) => r.i < res.i && kindOf(r) !== undefined).length : 0;
  const model = dialect(o.catalog.model, 'model');
  const mode = dialect(o.catalog.mode, 'mode');
  const cat = [model && `model: ${model}`, mode && `mode: ${mode}`].filter(Boolean).join('; ') || 'no models or modes';
  const parts = [ms(o.elapsedMs), cat];
  if (early) parts.push(`${plural(early, 'update')} before the response`);
  if (o.mcpNote) parts.push(o.mcpNote);
  const evidence = [req, res].filter((r) => r !== undefined).map((r) => brief(r!, 400));
  return result('session_new', 'session/new', 'works', parts.join('; '), evidence, {
    timeMs: Math.round(o.elapsedMs),
    sessionId: o.sessionId,
    configOptions: Array.isArray((res?.msg.result as { configOptions?: unknown } | undefined)?.configOptions),
    legacyModels: (res?.msg.result as { models?: unknown } | undefined)?.models !== undefined,
    legacyModes: (res?.msg.result as { modes?: unknown } | undefined)?.modes !== undefined,
    updatesBeforeResponse: early,
  });
}
