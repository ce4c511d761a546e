/**
 * Load and resume of the probe's session (closed first, reopened on the same connection):
 * what is replayed before the response, whether replayed tool calls are paired with their
 * completions, and whether replay ids match the live ones. ACP: load replays, resume does not.
 */
import { codedErrorText, plural, result, type ProbeContext } from './context.js';
import { brief, chunkText, isRequest, isResponseTo, kindOf, updateOf, type Recorded } from './recorder.js';
import { describeCall, traceToolCalls } from './tool-calls.js';
import type { CheckResult } from './types.js';

interface Reopened {
  updates: Recorded[];
  request?: Recorded;
  response?: Recorded;
  error?: string;
}

async function reopen(ctx: ProbeContext, method: 'session/load' | 'session/resume'): Promise<Reopened> {
  const { client, recorder: rec } = ctx;
  const sid = ctx.session.id;
  // One session id may be open once per connection: close ours (at the agent too, when it can).
  await client.closeSession(ctx.session, 'probe: reopening');
  const from = rec.mark();
  const setup = { cwd: ctx.ws.cwd, mcpServers: ctx.mcpServer ? [ctx.mcpServer] : [] };
  let error: string | undefined;
  try {
    ctx.session = await (method === 'session/load' ? client.loadSession(sid, setup) : client.resumeSession(sid, setup));
  } catch (err) {
    error = codedErrorText(err);
  }
  const frames = rec.slice(from);
  const request = frames.find((r) => isRequest(r, method));
  const response = request ? frames.find((r) => isResponseTo(r, request)) : undefined;
  const updates = frames.filter((r) => (!response || r.i < response.i) && updateOf(r, sid) !== undefined);
  const out: Reopened = { updates };
  if (request) out.request = request;
  if (response) out.response = response;
  if (error) out.error = error;
  return out;
}

const kinds = (updates: Recorded[]): string => {
  const n = new Map<string, number>();
  for (const r of updates) n.set(kindOf(r) ?? '?', (n.get(kindOf(r) ?? '?') ?? 0) + 1);
  return [...n].map(([k, c]) => `${k}×${c}`).join(', ');
};

export async function checkLoad(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'load (replay)';
  if (!ctx.client.capabilities.supportsLoad) return result('load', title, 'unsupported', 'no loadSession capability');
  if (ctx.busy) return result('load', title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const sid = ctx.session.id;
  const r = await reopen(ctx, 'session/load');
  const evidence = [r.request, r.response].filter((x): x is Recorded => x !== undefined).map((x) => brief(x, 240));
  if (r.error)
    return result('load', title, 'broken', `session/load failed: ${r.error}`, evidence, { replayed: r.updates.length });
  const { calls, missingIds } = traceToolCalls(r.updates, sid);
  const unpaired = calls.filter((c) => !c.closed);
  const userText = r.updates
    .filter((u) => kindOf(u) === 'user_message_chunk')
    .map((u) => chunkText(updateOf(u)!))
    .join('\n');
  const hasFirst = ctx.firstPrompt ? userText.includes(ctx.firstPrompt.slice(0, 24)) : undefined;
  const sameIds = calls.filter((c) => ctx.liveToolIds.has(c.id));
  const data = {
    replayed: r.updates.length,
    kinds: kinds(r.updates),
    toolCalls: calls.length,
    paired: calls.length - unpaired.length,
    replayIds: calls.map((c) => c.id),
    liveIds: [...ctx.liveToolIds],
    idsMatchLive: sameIds.length,
    firstPromptReplayed: hasFirst,
  };
  evidence.push(...calls.slice(0, 6).map(describeCall));
  if (r.updates.length === 0)
    return result(
      'load',
      title,
      'broken',
      'session/load replayed nothing, though the session has history',
      evidence,
      data,
    );
  const summary = [
    `replayed ${plural(r.updates.length, 'update')} (${data.kinds}) before the response`,
    `${data.paired}/${calls.length} tool calls paired`,
    ...(hasFirst === false ? ['the first prompt is not in the replay'] : []),
  ];
  if (missingIds || unpaired.length) {
    return result(
      'load',
      title,
      'broken',
      `${summary.join('; ')}; ${plural(unpaired.length + missingIds, 'replayed call')} never completed or had no id`,
      evidence,
      data,
    );
  }
  if (calls.length > 0 && ctx.liveToolIds.size > 0 && sameIds.length === 0) {
    const ex = `${calls[0]!.id} vs live ${[...ctx.liveToolIds][0]}`;
    return result(
      'load',
      title,
      'quirk',
      `${summary.join('; ')}; replay ids differ from the live ids (${ex}): never key state on tool-call ids across a reload`,
      evidence,
      data,
    );
  }
  if (sameIds.length < calls.length && ctx.liveToolIds.size > 0) {
    return result(
      'load',
      title,
      'quirk',
      `${summary.join('; ')}; only ${sameIds.length}/${calls.length} replay ids match the live ones`,
      evidence,
      data,
    );
  }
  return result(
    'load',
    title,
    'works',
    `${summary.join('; ')}${calls.length ? '; ids match the live ones' : ''}`,
    evidence,
    data,
  );
}

export async function checkResume(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'resume';
  if (!ctx.client.capabilities.supportsSession('resume'))
    return result('resume', title, 'unsupported', 'no sessionCapabilities.resume');
  if (ctx.busy) return result('resume', title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const r = await reopen(ctx, 'session/resume');
  const evidence = [r.request, ...r.updates.slice(0, 2), r.response]
    .filter((x): x is Recorded => x !== undefined)
    .map((x) => brief(x, 240));
  const data = { replayed: r.updates.length, kinds: kinds(r.updates) };
  if (r.error) return result('resume', title, 'broken', `session/resume failed: ${r.error}`, evidence, data);
  if (r.updates.length > 0) {
    return result(
      'resume',
      title,
      'quirk',
      `resume replayed ${plural(r.updates.length, 'update')} (${data.kinds}) before answering (ACP: resume must not replay)`,
      evidence,
      data,
    );
  }
  return result('resume', title, 'works', 'resumed without replaying history', evidence, data);
}
