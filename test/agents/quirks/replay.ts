/**
 * Plays a recorded real-agent fixture (test/fixtures/agents/<agent>/<name>.ndjson) as the agent over
 * real streams into Talaria's AcpClient + Session, so each quirk test runs the recorded frames
 * through the transport, SDK adapter, router, reducer and session core, without the agent installed.
 * The client gets the quirk set that follows what the recorded agent says in initialize (as any
 * launch of it would: providers/quirks startWithQuirks), unless the test asks for none.
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
import { startWithQuirks, type AppliedQuirks } from '../../../src/providers/quirks/index.js';

export function fixture(agent: string, name: string): WireLogLine[] {
  return parseWireLog(
    readFileSync(fileURLToPath(new URL(`../../fixtures/agents/${agent}/${name}.ndjson`, import.meta.url)), 'utf8'),
  );
}

/** The recorded frames matching `pred` (to assert the quirk is really in the recording). */
export function recorded(lines: WireLogLine[], pred: (m: RawMessage, dir: string) => boolean): RawMessage[] {
  return lines.filter((l) => pred(l.msg, l.dir)).map((l) => l.msg);
}

export function update(
  m: RawMessage,
): { sessionUpdate?: string; toolCallId?: string; [k: string]: unknown } | undefined {
  return m.method === 'session/update' ? (m.params as { update?: { sessionUpdate?: string } }).update : undefined;
}

export interface Replay {
  client: AcpClient;
  /** The quirk set the recorded agent got (undefined with `quirks: false`). */
  quirks?: AppliedQuirks;
  /** The set it was first started with, when its capabilities had to change (a restart before any session). */
  restartedFrom?: AppliedQuirks;
  player: FixturePlayer;
  lines: WireLogLine[];
  frames: Frame[];
  listeners: Set<() => void>;
  /** What Talaria sent to the agent, in order. */
  sent(): RawMessage[];
  close(): Promise<void>;
}

const open: Replay[] = [];

export interface ReplayOptions extends ClientOptions {
  /** false: no quirk set at all (the bare ACP client). */
  quirks?: boolean;
  /** Offer fs/terminal as the quirk set says (default: neither, the recorded paths do not exist here). */
  offerCaps?: boolean;
}

export async function replay(agent: string, name: string, o: ReplayOptions = {}): Promise<Replay> {
  const { quirks: useQuirks = true, offerCaps = false, ...opts } = o;
  const lines = fixture(agent, name);
  const frames: Frame[] = [];
  const listeners = new Set<() => void>();
  let player!: FixturePlayer;
  const connect = (caps: Partial<ClientOptions>) => {
    player = playFixture(lines);
    // No real fs/terminal unless asked: the recorded paths do not exist here (tests that need them opt in).
    return AcpClient.connect(
      { input: player.agentOut, output: player.agentIn },
      {
        fs: false,
        terminal: false,
        ...caps,
        ...opts,
        onFrame: (f) => {
          frames.push(f);
          opts.onFrame?.(f);
          for (const l of listeners) l();
        },
      },
    );
  };
  let client: AcpClient;
  let applied: { quirks: AppliedQuirks; restartedFrom?: AppliedQuirks } | undefined;
  if (!useQuirks) client = await connect({});
  else {
    const started = await startWithQuirks({
      command: 'recorded-agent',
      args: [],
      hookOptions: {},
      spawn: (caps) =>
        connect(
          offerCaps
            ? caps
            : caps.clientCapabilityOverrides
              ? { clientCapabilityOverrides: caps.clientCapabilityOverrides }
              : {},
        ),
      // A restart: what the first "process" got is not part of this replay.
      discard: async (c) => {
        await c.close();
        frames.length = 0;
      },
    });
    client = started.client;
    applied = started;
  }
  const r: Replay = {
    client,
    ...(applied
      ? { quirks: applied.quirks, ...(applied.restartedFrom ? { restartedFrom: applied.restartedFrom } : {}) }
      : {}),
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
