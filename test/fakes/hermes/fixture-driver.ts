/**
 * Replays the CLIENT side of a recorded Hermes fixture against a live agent process and
 * reduces both streams to comparable forms: structural shapes (update kinds, field sets,
 * literal kinds/statuses), a normalized transcript (texts, titles, usage numbers) and the
 * key order of tool-call frames.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HermesClient, Msg } from './test-client.js';

export interface FixtureLine {
  t_ms: number;
  dir: 'client->agent' | 'agent->client';
  msg: Msg;
}

/** `dir`: hermes-0.18.2 (the first recordings) or hermes-0.18.2-real (the side-by-side research runs). */
export function loadFixture(name: string, dir = 'hermes-0.18.2'): FixtureLine[] {
  const file = fileURLToPath(new URL(`../../fixtures/${dir}/${name}.ndjson`, import.meta.url));
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FixtureLine);
}

export const loadReal = (name: string): FixtureLine[] => loadFixture(name, 'hermes-0.18.2-real');

const LITERAL = new Set([
  'sessionUpdate',
  'kind',
  'status',
  'type',
  'optionId',
  'stopReason',
  'code',
  'method',
  'currentModeId',
  'currentModelId',
  'protocolVersion',
  'sessionKind',
  'compressionDepth',
  'size',
  'outcome',
]);

/** Structure of a JSON value: types, sorted keys, literal values for the keys that name things. */
export function shape(v: unknown, key = ''): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    const parts = v.map((x) => shape(x));
    return `[${parts.filter((p, i) => p !== parts[i - 1]).join(',')}]`;
  }
  if (typeof v === 'object') {
    const o = v as Msg;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${k}:${shape(o[k], k)}`)
      .join(',')}}`;
  }
  if (LITERAL.has(key)) return JSON.stringify(v);
  return typeof v;
}

const isTitleUpdate = (m: Msg) =>
  m.method === 'session/update' && m.params?.update?.sessionUpdate === 'session_info_update';

export function frameShape(m: Msg): string {
  if (m.method === 'session/update') return `upd ${shape(m.params.update)}`;
  if (m.method) return `req ${m.method} ${shape(m.params)}`;
  return m.error ? `err ${shape(m.error)}` : `res ${shape(m.result)}`;
}

/** Shapes with title updates dropped and consecutive repeats (streamed deltas) collapsed. */
export function shapes(msgs: Msg[]): string[] {
  const s = msgs.filter((m) => !isTitleUpdate(m)).map(frameShape);
  return s.filter((x, i) => x !== s[i - 1]);
}

/** Key order of tool-call frames and permission requests (the SDK's field order). */
export function keyOrders(msgs: Msg[]): string[] {
  const out: string[] = [];
  for (const m of msgs) {
    const u = m.method === 'session/update' ? (m.params.update as Msg) : null;
    if (u && /^tool_call/.test(u.sessionUpdate)) out.push(`${u.sessionUpdate}: ${Object.keys(u).join(',')}`);
    if (m.method === 'session/request_permission')
      out.push(`permission: ${Object.keys(m.params).join(',')} / ${Object.keys(m.params.toolCall).join(',')}`);
  }
  return out;
}

const texts = (content: unknown): string =>
  (Array.isArray(content) ? content : [])
    .map((c: Msg) =>
      c.type === 'diff'
        ? `diff ${c.path} old=${JSON.stringify(c.oldText)} new=${JSON.stringify(c.newText)}`
        : c.content?.text,
    )
    .join(' / ');

/** Hermes' answers to mid-turn requests (/steer, a queued prompt): their place in the stream is timing. */
export const MID_TURN_NOTICE = /^(⏩ Steer queued for the active turn: |Queued for the next turn\. \(\d+ queued\)$)/;

/** Estimates that depend on prompt sizes: only their relations are compared. */
function normalizeNumbers(l: string): string {
  return l
    .replace(/Context usage: ~[\d,]+ \/ ([\d,]+) tokens \([\d.]+%\)/g, 'Context usage: ~N / $1 tokens')
    .replace(/Compression: ~[\d,]+ tokens until/g, 'Compression: ~N tokens until')
    .replace(/~([\d,]+) -> ~([\d,]+) tokens/g, (_m, a: string, b: string) =>
      a === b ? '~A -> ~A tokens' : '~A -> ~B tokens',
    );
}

export interface TranscriptOptions {
  /** Responses to leave out (mid-turn requests, compared on their own); their notice chunks go too. */
  midTurn?: Set<unknown>;
  /** Hide the token estimate in "Context length exceeded (N tokens)" (it counts a real summary's size). */
  estimates?: boolean;
}

/** Human-comparable transcript; `ws` is replaced by /workspace, compaction bodies by <SUMMARY>. */
export function transcript(msgs: Msg[], ws?: string, o: TranscriptOptions = {}): string[] {
  const out: string[] = [];
  for (const m of msgs) {
    if (isTitleUpdate(m)) continue;
    const u = m.method === 'session/update' ? (m.params.update as Msg) : null;
    if (o.midTurn && u?.sessionUpdate === 'agent_message_chunk' && MID_TURN_NOTICE.test(u.content.text)) continue;
    if (o.midTurn && !m.method && o.midTurn.has(m.id)) continue;
    if (u && /_chunk$/.test(u.sessionUpdate)) {
      const head = `${u.sessionUpdate}: `;
      const last = out[out.length - 1];
      if (last?.startsWith(head) && !/^(user_message_chunk)/.test(head)) out[out.length - 1] = last + u.content.text;
      else out.push(head + u.content.text);
    } else if (u?.sessionUpdate === 'tool_call') out.push(`tool_call ${u.kind} ${u.title} | ${texts(u.content)}`);
    else if (u?.sessionUpdate === 'tool_call_update') out.push(`tool_call_update ${u.status} | ${texts(u.content)}`);
    else if (u?.sessionUpdate === 'plan')
      out.push(`plan ${u.entries.map((e: Msg) => `${e.status}:${e.content}`).join(', ')}`);
    else if (m.method === 'session/request_permission') {
      out.push(
        `permission ${m.params.toolCall.toolCallId} ${m.params.toolCall.title} | ${texts(m.params.toolCall.content)} | ${m.params.options.map((o: Msg) => o.optionId).join(',')}`,
      );
    } else if (m.result && 'stopReason' in m.result)
      out.push(`stop ${m.result.stopReason} ${JSON.stringify(m.result.usage ?? null)}`);
  }
  return out.map((line) => {
    let l = ws ? line.split(ws).join('/workspace') : line;
    l = l.replace(/(avoid repeating it:\n)[\s\S]*?(\n\n--- END OF CONTEXT SUMMARY)/g, '$1<SUMMARY>$2');
    if (o.estimates) l = l.replace(/Context length exceeded \([\d,]+ tokens\)/g, 'Context length exceeded (N tokens)');
    return normalizeNumbers(l);
  });
}

/** Responses by request id (for mid-turn requests: what each was answered, whatever the order). */
export function responses(msgs: Msg[], ids: Iterable<unknown>): Record<string, unknown> {
  const want = new Set(ids);
  return Object.fromEntries(
    msgs.filter((m) => !m.method && want.has(m.id)).map((m) => [String(m.id), m.result ?? m.error]),
  );
}

/** Prompt requests answered while another prompt of the recording was still running. */
export function midTurnIds(lines: FixtureLine[]): Set<unknown> {
  const open = new Set<unknown>();
  const mid = new Set<unknown>();
  for (const l of lines) {
    const m = l.msg;
    if (l.dir === 'client->agent' && m.method === 'session/prompt') {
      if (open.size) mid.add(m.id);
      open.add(m.id);
    } else if (l.dir === 'agent->client' && !m.method && open.has(m.id)) open.delete(m.id);
  }
  return mid;
}

export interface DriveOptions {
  ws: string;
  /** Fixture session ids already known to the agent (e.g. from an earlier run). */
  sessions?: Map<string, string>;
}

/** Frames that show a running prompt's progress (what a client reacts to mid-turn). */
const PROGRESS = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'user_message_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);
const isProgress = (m: Msg) => m.method === 'session/update' && PROGRESS.has(m.params.update.sessionUpdate);

/**
 * Sends the fixture's client frames in order, each when the recording sent it: after the
 * responses the recording had received by then, after the agent requests it answers, and —
 * while a prompt runs — after as many progress frames of that prompt as the recording had
 * seen (so /steer, queued prompts and cancels land mid-stream as they did).
 */
export async function driveFixture(
  c: HermesClient,
  lines: FixtureLine[],
  o: DriveOptions,
): Promise<{ fixture: Msg[]; agent: Msg[] }> {
  const sids = o.sessions ?? new Map<string, string>();
  const start = c.mark();
  const pending: Array<Promise<Msg>> = [];
  const answered = new Set<unknown>();
  /** Open prompts: recording progress count since they were sent, and our mark. */
  const open = new Map<unknown, { recorded: number; mark: number }>();
  const subst = (msg: Msg): Msg =>
    JSON.parse(JSON.stringify(msg), (_k, v) =>
      typeof v === 'string' ? (sids.get(v) ?? v.split('/workspace').join(o.ws)) : v,
    ) as Msg;

  for (const [i, line] of lines.entries()) {
    const m = line.msg;
    if (line.dir === 'agent->client') {
      if (isProgress(m)) for (const p of open.values()) p.recorded++;
      if (!m.method && 'id' in m) {
        answered.add(m.id);
        open.delete(m.id);
      }
      // Learn the agent's ids for sessions the fixture created.
      const sid = m.result?.sessionId ?? m.result?._meta?.hermes?.sessionProvenance?.acpSessionId;
      if (typeof sid === 'string' && sid && !sids.has(sid)) {
        const mine = await c.waitFor((f) => f.id === m.id && !f.method, `response ${m.id}`, start);
        const got = mine.result?.sessionId ?? mine.result?._meta?.hermes?.sessionProvenance?.acpSessionId;
        if (typeof got === 'string') sids.set(sid, got);
      }
      continue;
    }
    // Wait until we are where the recording was: its responses so far, and the progress of the running prompt.
    for (const id of answered)
      await c.waitFor((f) => f.id === id && !f.method, `response ${String(id)} before line ${i}`, start);
    const running = [...open.values()].at(-1);
    if (running) {
      let seen = 0;
      const want = running.recorded;
      if (want > 0)
        await c.waitFor(
          (f) => isProgress(f) && ++seen >= want,
          `${want} progress frames before line ${i}`,
          running.mark,
        );
    }
    if (m.method && 'id' in m) {
      if (m.method === 'session/prompt') open.set(m.id, { recorded: 0, mark: c.mark() });
      pending.push(c.waitFor((f) => f.id === m.id && !f.method, `response ${m.id} (${m.method})`, start));
      c.send(subst(m));
    } else if ('id' in m) {
      await c.waitFor((f) => f.method && f.id === m.id, `agent request ${m.id}`, start);
      c.send(subst(m));
    } else c.send(subst(m)); // a notification (session/cancel)
  }
  await Promise.all(pending);
  const fixture = lines.filter((l) => l.dir === 'agent->client').map((l) => l.msg);
  // Notifications after the last response (ACU after a fork, usage after a load) may still be in flight.
  const lastRes = fixture.findLastIndex((m) => !m.method && 'id' in m);
  if (lastRes >= 0) {
    const want = fixture.slice(lastRes + 1).filter((m) => !isTitleUpdate(m)).length;
    const ours = c.since(start).findLastIndex((m) => !m.method && m.id === fixture[lastRes]!.id);
    let seen = 0;
    if (want > 0)
      await c.waitFor((m) => !isTitleUpdate(m) && ++seen >= want, 'trailing notifications', start + ours + 1);
  }
  return { fixture, agent: c.since(start) };
}
