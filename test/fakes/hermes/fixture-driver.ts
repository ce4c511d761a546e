/**
 * Replays the CLIENT side of a recorded Hermes fixture against a live agent process and
 * reduces both streams to comparable forms: structural shapes (update kinds, field sets,
 * literal kinds/statuses) and a normalized transcript (texts, titles, usage numbers).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HermesClient, Msg } from './test-client.js';

export interface FixtureLine {
  t_ms: number;
  dir: 'client->agent' | 'agent->client';
  msg: Msg;
}

export function loadFixture(name: string): FixtureLine[] {
  const file = fileURLToPath(new URL(`../../fixtures/hermes-0.18.2/${name}.ndjson`, import.meta.url));
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FixtureLine);
}

const LITERAL = new Set([
  'sessionUpdate', 'kind', 'status', 'type', 'optionId', 'stopReason', 'code', 'method', 'currentModeId',
  'currentModelId', 'protocolVersion', 'sessionKind', 'compressionDepth', 'size', 'outcome',
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
    return `{${Object.keys(o).sort().map((k) => `${k}:${shape(o[k], k)}`).join(',')}}`;
  }
  if (LITERAL.has(key)) return JSON.stringify(v);
  return typeof v;
}

const isTitleUpdate = (m: Msg) => m.method === 'session/update' && m.params?.update?.sessionUpdate === 'session_info_update';

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

const texts = (content: unknown): string =>
  (Array.isArray(content) ? content : [])
    .map((c: Msg) => (c.type === 'diff' ? `diff ${c.path} old=${JSON.stringify(c.oldText)} new=${JSON.stringify(c.newText)}` : c.content?.text))
    .join(' / ');

/** Human-comparable transcript; `ws` is replaced by /workspace, compaction bodies by <SUMMARY>. */
export function transcript(msgs: Msg[], ws?: string): string[] {
  const out: string[] = [];
  for (const m of msgs) {
    if (isTitleUpdate(m)) continue;
    const u = m.method === 'session/update' ? (m.params.update as Msg) : null;
    if (u && /_chunk$/.test(u.sessionUpdate)) {
      const head = `${u.sessionUpdate}: `;
      const last = out[out.length - 1];
      if (last?.startsWith(head) && !/^(user_message_chunk)/.test(head)) out[out.length - 1] = last + u.content.text;
      else out.push(head + u.content.text);
    } else if (u?.sessionUpdate === 'tool_call') out.push(`tool_call ${u.kind} ${u.title} | ${texts(u.content)}`);
    else if (u?.sessionUpdate === 'tool_call_update') out.push(`tool_call_update ${u.status} | ${texts(u.content)}`);
    else if (u?.sessionUpdate === 'plan') out.push(`plan ${u.entries.map((e: Msg) => `${e.status}:${e.content}`).join(', ')}`);
    else if (m.method === 'session/request_permission') {
      out.push(`permission ${m.params.toolCall.toolCallId} ${m.params.toolCall.title} | ${texts(m.params.toolCall.content)} | ${m.params.options.map((o: Msg) => o.optionId).join(',')}`);
    } else if (m.result && 'stopReason' in m.result) out.push(`stop ${m.result.stopReason} ${JSON.stringify(m.result.usage ?? null)}`);
  }
  return out.map((line) => {
    let l = ws ? line.split(ws).join('/workspace') : line;
    l = l.replace(/(avoid repeating it:\n)[\s\S]*?(\n\n--- END OF CONTEXT SUMMARY)/g, '$1<SUMMARY>$2');
    return l;
  });
}

export interface DriveOptions {
  ws: string;
  /** Fixture session ids already known to the agent (e.g. from an earlier run). */
  sessions?: Map<string, string>;
}

/**
 * Sends the fixture's client frames in order: requests after every earlier response (as the
 * recording client did), answers to agent requests after that request arrived, and a
 * session/cancel after as many message chunks as the recording had streamed.
 */
export async function driveFixture(c: HermesClient, lines: FixtureLine[], o: DriveOptions): Promise<{ fixture: Msg[]; agent: Msg[] }> {
  const sids = o.sessions ?? new Map<string, string>();
  const start = c.mark();
  const pending: Array<Promise<Msg>> = [];
  let promptMark = start;
  let chunksInPrompt = 0;
  const subst = (msg: Msg): Msg =>
    JSON.parse(JSON.stringify(msg), (_k, v) => (typeof v === 'string' ? (sids.get(v) ?? (v === '/workspace' ? o.ws : v)) : v)) as Msg;

  for (const [i, line] of lines.entries()) {
    const m = line.msg;
    if (line.dir === 'agent->client') {
      if (m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk') chunksInPrompt++;
      // Learn the agent's ids for sessions the fixture created.
      const sid = m.result?.sessionId ?? m.result?._meta?.hermes?.sessionProvenance?.acpSessionId;
      if (typeof sid === 'string' && sid && !sids.has(sid)) {
        const mine = await c.waitFor((f) => f.id === m.id && !f.method, `response ${m.id}`, start);
        const got = mine.result?.sessionId ?? mine.result?._meta?.hermes?.sessionProvenance?.acpSessionId;
        if (typeof got === 'string') sids.set(sid, got);
      }
      continue;
    }
    if (m.method && 'id' in m) {
      await Promise.all(pending);
      const msg = subst(m);
      if (m.method === 'session/prompt') {
        promptMark = c.mark();
        chunksInPrompt = 0;
      }
      pending.push(c.waitFor((f) => f.id === m.id && !f.method, `response ${m.id} (${m.method})`, start));
      c.send(msg);
    } else if ('id' in m) {
      await c.waitFor((f) => f.method && f.id === m.id, `agent request ${m.id}`, start);
      c.send(subst(m));
    } else {
      // A notification (session/cancel): wait until as much text streamed as in the recording.
      const want = chunksInPrompt;
      let seen = 0;
      await c.waitFor((f) => f.method === 'session/update' && f.params.update.sessionUpdate === 'agent_message_chunk' && ++seen >= want, `${want} chunks before line ${i}`, promptMark);
      c.send(subst(m));
    }
  }
  await Promise.all(pending);
  const fixture = lines.filter((l) => l.dir === 'agent->client').map((l) => l.msg);
  const want = shapes(fixture).length;
  // Trailing notifications (ACU after a fork, usage after a load) may still be in flight.
  await c.waitFor(() => shapes(c.since(start)).length >= want, 'trailing notifications', start).catch(() => undefined);
  return { fixture, agent: c.since(start) };
}
