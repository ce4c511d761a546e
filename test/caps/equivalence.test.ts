/**
 * Equivalence: the same prompt sequence, once through `talaria acp` (the official SDK as the
 * editor, over the child's real pipes) and once CapTP-direct (`connectCaps`, events pushed to a
 * sink), with the demo agent and with the Hermes emulator, gives the same observable stream.
 *
 * What is compared, per turn: the stop reason, and the ordered entries the turn produced —
 * assistant messages and thoughts (their full text, chunks folded by message) and tool calls
 * (title, kind, final status). ACP side: folded from `session/update` notifications; caps side:
 * folded from the pushed `entry.added` / `entry.updated` events. Normalized away: ids (session,
 * message, tool call, entry), timestamps, and the working folder's path (each run has its own).
 * Not compared: the user's own prompt echo, notices, usage and plan updates (no ACP counterpart
 * in the pushed stream, or none in the ACP one).
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { connectCaps, E, makeEventSink, type CapsLauncher } from '../../src/caps/index.js';
import { tempDir } from '../cli/helpers.js';
import { HERMES_BIN_DIR } from '../harness/helpers.js';
import { editorEnv, startEditor } from '../acp/helpers.js';
import { collector, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

type Norm = { kind: string; text?: string; title?: string; toolKind?: string; status?: string };
type Turn = { stopReason: string; entries: Norm[] };

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: 'test-editor', version: '1' },
};

const scrub = (s: string, cwd: string): string => s.split(cwd).join('<cwd>');

/** ACP `session/update`s of one turn → its entries. */
function foldAcp(updates: Record<string, any>[], cwd: string): Norm[] {
  const out: (Norm & { key?: string })[] = [];
  const tools = new Map<string, Norm>();
  for (const u of updates) {
    const k = u.sessionUpdate as string;
    if (k === 'agent_message_chunk' || k === 'agent_thought_chunk') {
      const kind = k === 'agent_message_chunk' ? 'assistant_message' : 'thought';
      const text = u.content?.type === 'text' ? String(u.content.text) : '';
      const last = out.at(-1);
      const key = `${kind}:${String(u.messageId ?? '')}`;
      if (last && last.kind === kind && last.key === key) last.text += text;
      else out.push({ kind, text, key });
    } else if (k === 'tool_call') {
      const t: Norm = {
        kind: 'tool_call',
        title: String(u.title),
        toolKind: String(u.kind ?? 'other'),
        status: String(u.status ?? 'pending'),
      };
      tools.set(String(u.toolCallId), t);
      out.push(t);
    } else if (k === 'tool_call_update') {
      const t = tools.get(String(u.toolCallId));
      if (!t) continue;
      if (u.title) t.title = String(u.title);
      if (u.kind) t.toolKind = String(u.kind);
      if (u.status) t.status = String(u.status);
    }
  }
  return out.map(({ key: _key, ...n }) => norm(n, cwd));
}

/** Pushed caps events of one turn → its entries. */
function foldCaps(events: Record<string, any>[], cwd: string): Norm[] {
  const byIndex = new Map<number, Record<string, any>>();
  for (const e of events)
    if (e.type === 'entry.added' || e.type === 'entry.updated')
      byIndex.set(e.index as number, e.entry as Record<string, any>);
  return [...byIndex.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, x]) => x)
    .filter((x) => ['assistant_message', 'thought', 'tool_call'].includes(String(x.kind)))
    .map((x) =>
      norm(
        x.kind === 'tool_call'
          ? {
              kind: 'tool_call',
              title: String(x.title),
              toolKind: String(x.toolKind ?? 'other'),
              status: String(x.status),
            }
          : { kind: String(x.kind), text: String(x.text) },
        cwd,
      ),
    );
}

function norm(n: Norm, cwd: string): Norm {
  return JSON.parse(scrub(JSON.stringify(n), cwd)) as Norm;
}

async function viaAcp(agentArgs: string[], prompts: string[], extraEnv: Record<string, string>): Promise<Turn[]> {
  const { env } = editorEnv(extraEnv);
  const cwd = tempDir('caps-eq-acp');
  const ed = startEditor([...agentArgs, '--approve', 'all'], { cwd, env });
  await ed.request('initialize', INIT);
  const s = await ed.request<{ sessionId: string }>('session/new', { cwd, mcpServers: [] });
  const turns: Turn[] = [];
  for (const text of prompts) {
    const from = ed.updates.length;
    const r = await ed.request<{ stopReason: string }>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text }],
    });
    const mine = ed.updates.slice(from).filter((u) => u.sessionId === s.sessionId);
    turns.push({
      stopReason: r.stopReason,
      entries: foldAcp(
        mine.map((u) => u.update as Record<string, any>),
        cwd,
      ),
    });
  }
  expect(await ed.close()).toBe(0);
  return turns;
}

async function viaCaps(provider: string, prompts: string[], hermes: boolean): Promise<Turn[]> {
  const t = await testHost({ hermes, harness: { host: { terminateGraceMs: 500, permission: { mode: 'auto' } } } });
  const cwd = t.p.userHome;
  const c = await connectCaps<CapsLauncher>(t.url, t.host.mintLauncher(cwd, { provider }).uri);
  const s = await E(c.root).newSession();
  const turns: Turn[] = [];
  for (const text of prompts) {
    const sink = collector<Record<string, any>>();
    const r = await E(
      E(s).prompt(
        text,
        makeEventSink((b) => sink.onBatch(b)),
      ),
    ).result();
    // result() resolves once the sink acknowledged every event of the turn.
    turns.push({ stopReason: r.stopReason, entries: foldCaps(sink.items, cwd) });
  }
  await c.close();
  return turns;
}

describe('equivalence: talaria acp (ACP over stdio) and CapTP-direct give the same observable stream', () => {
  it('the demo agent: the same turns, entry by entry', async () => {
    const prompts = ['hello there', 'tour', 'run echo same-on-both'];
    const [acp, caps] = await Promise.all([viaAcp(['--agent', 'demo'], prompts, {}), viaCaps('demo', prompts, false)]);
    expect(acp.every((x) => x.entries.some((e) => e.kind === 'assistant_message' && e.text !== ''))).toBe(true);
    expect(acp.some((x) => x.entries.some((e) => e.kind === 'tool_call' && e.toolKind === 'execute'))).toBe(true);
    expect(caps).toEqual(acp);
  });

  it('the Hermes emulator (tool calls settled at turn end included): the same turns, entry by entry', async () => {
    const prompts = ['hello', 'TOOLS'];
    const path = `${HERMES_BIN_DIR}:${process.env.PATH ?? ''}`;
    const [acp, caps] = await Promise.all([
      viaAcp(['--agent', 'hermes'], prompts, { PATH: path }),
      viaCaps('hermes', prompts, true),
    ]);
    expect(acp.some((x) => x.entries.some((e) => e.kind === 'tool_call'))).toBe(true);
    expect(caps).toEqual(acp);
  });
});
