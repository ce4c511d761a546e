/**
 * Plays a recorded real-agent fixture (test/fixtures/agents/<agent>/<name>.ndjson) as the agent over
 * real streams into Talaria's AcpClient + Session, so each quirk test runs the recorded frames
 * through the transport, SDK adapter, router, reducer and session core, without the agent installed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpClient, type ClientOptions } from '../../../src/session/client.js';
import { parseWireLog } from '../../../src/protocol/wire-log.js';
import type { Frame, RawMessage, WireLogLine } from '../../../src/protocol/types.js';
import type { Session } from '../../../src/session/session.js';
import type { TurnResult } from '../../../src/session/turn.js';
import type { Entry, ToolCallEntry } from '../../../src/thread/types.js';
import { playFixture, type FixturePlayer } from '../../fakes/fixture-player.js';
import type { AgentProfile, LaunchContext } from '../profiles/types.js';

export function fixture(agent: string, name: string): WireLogLine[] {
  return parseWireLog(readFileSync(fileURLToPath(new URL(`../../fixtures/agents/${agent}/${name}.ndjson`, import.meta.url)), 'utf8'));
}

/** The recorded frames matching `pred` (to assert the quirk is really in the recording). */
export function recorded(lines: WireLogLine[], pred: (m: RawMessage, dir: string) => boolean): RawMessage[] {
  return lines.filter((l) => pred(l.msg, l.dir)).map((l) => l.msg);
}

export function update(m: RawMessage): { sessionUpdate?: string; toolCallId?: string; [k: string]: unknown } | undefined {
  return m.method === 'session/update' ? (m.params as { update?: { sessionUpdate?: string } }).update : undefined;
}

export interface Replay {
  client: AcpClient;
  player: FixturePlayer;
  lines: WireLogLine[];
  frames: Frame[];
  listeners: Set<() => void>;
  /** What Talaria sent to the agent, in order. */
  sent(): RawMessage[];
  close(): Promise<void>;
}

const open: Replay[] = [];

/** The options a launch profile gives the client (hooks, capabilities), as the matrix uses them. */
export function profileOptions(p: AgentProfile): ClientOptions {
  const ctx: LaunchContext = { installDir: '/nonexistent', home: '/nonexistent', tmp: tmpdir(), cwd: tmpdir(), modelUrl: 'http://127.0.0.1:9', credentials: true };
  const hooks = typeof p.hooks === 'function' ? p.hooks(ctx) : p.hooks;
  return {
    ...(hooks ? { hooks } : {}),
    ...(p.fs !== undefined ? { fs: p.fs } : {}),
    ...(p.clientCapabilityOverrides ? { clientCapabilityOverrides: p.clientCapabilityOverrides } : {}),
  };
}

export async function replay(agent: string, name: string, opts: ClientOptions = {}): Promise<Replay> {
  const lines = fixture(agent, name);
  const player = playFixture(lines);
  const frames: Frame[] = [];
  const listeners = new Set<() => void>();
  // No real fs/terminal: the recorded paths do not exist here (tests that need them opt in).
  const client = await AcpClient.connect({ input: player.agentOut, output: player.agentIn }, {
    fs: false,
    terminal: false,
    ...opts,
    onFrame: (f) => {
      frames.push(f);
      for (const l of listeners) l();
    },
  });
  const r: Replay = {
    client,
    listeners,
    player,
    lines,
    frames,
    sent: () => frames.filter((f) => f.dir === 'client->agent').map((f) => f.msg),
    close: async () => {
      player.close();
      await client.close();
    },
  };
  open.push(r);
  return r;
}

export async function closeAll(): Promise<void> {
  for (const r of open.splice(0)) await r.close();
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'talaria-quirk-'));
}

export function turnEntries(s: Session, r: TurnResult): Entry[] {
  return s.thread.entries.filter((e) => e.turnId === r.turnId);
}

export function toolCalls(s: Session, r?: TurnResult): ToolCallEntry[] {
  return s.thread.entries.filter((e): e is ToolCallEntry => e.kind === 'tool_call' && (!r || e.turnId === r.turnId));
}

/** Resolves when the client has sent a frame matching `pred` (checked on each new frame). */
export function sentFrame(r: Replay, pred: (m: RawMessage) => boolean): Promise<RawMessage> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const hit = r.sent().find(pred);
      if (hit) resolve(hit);
      return !!hit;
    };
    if (check()) return;
    const l = (): void => void (check() && r.listeners.delete(l));
    r.listeners.add(l);
  });
}
