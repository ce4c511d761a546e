import { fileURLToPath } from 'node:url';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpClient, type ClientOptions } from '../../src/session/client.js';
import type { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Frame } from '../../src/protocol/types.js';
import { nodeArgs } from '../prebuilt.js';

export const TSX = import.meta.resolve('tsx');
export const SDK_AGENT = fileURLToPath(new URL('../fakes/sdk-agent.ts', import.meta.url));

export function tempDir(prefix = 'talaria-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Spawns the scripted SDK fake agent as a real process and initializes it through Talaria. */
export async function spawnFake(
  opts: ClientOptions & { env?: Record<string, string>; cwd?: string } = {},
): Promise<{ client: AcpClient; frames: Frame[]; cwd: string }> {
  const frames: Frame[] = [];
  const cwd = opts.cwd ?? tempDir();
  const { env, ...clientOpts } = opts;
  const client = await AcpClient.spawn(
    { command: process.execPath, args: nodeArgs(SDK_AGENT), cwd, env: env ?? {} },
    {
      ...clientOpts,
      onFrame: (f) => {
        frames.push(f);
        clientOpts.onFrame?.(f);
      },
    },
  );
  return { client, frames, cwd };
}

/** Collects a session's events from now on. */
export function record(session: Session): SessionEvent[] {
  const out: SessionEvent[] = [];
  session.subscribe((e) => out.push(e));
  return out;
}

/** Resolves with the first event matching `pred` (no timeouts: the test's own timeout bounds it). */
export function waitFor<T extends SessionEvent>(session: Session, pred: (e: SessionEvent) => e is T): Promise<T>;
export function waitFor(session: Session, pred: (e: SessionEvent) => boolean): Promise<SessionEvent>;
export function waitFor(session: Session, pred: (e: SessionEvent) => boolean): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const off = session.subscribe((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
}

export function assistantText(session: Session): string {
  return session.thread.entries
    .filter((e) => e.kind === 'assistant_message')
    .map((e) => (e as { text: string }).text)
    .join('|');
}
