/**
 * Memory per idle session: heap after `newSession` × N (spread over a few agent processes, each
 * session with a subscriber, as a UI would hold it) minus the heap before, after full
 * collections, divided by N. The agent is the demo agent (its session/new answers carry a real
 * catalog of models and modes, which every session keeps). One warm-up session per client first,
 * so code compiled on first use is not billed to the sessions.
 */
import { AcpClient } from '../src/session/client.js';
import type { Session } from '../src/session/session.js';
import { ROOT } from './flood-driver.js';
import { MB, fullGc, hasGc, heapUsed } from './memory.js';
import { withStartupEnv } from './startup.js';

export interface IdleParams {
  sessions: number;
  processes: number;
  command: readonly string[];
}

export interface IdleResult {
  mbPerSession: number;
  kbPerSession: number;
  sessions: number;
  /** Sessions the clients held when the heap was read (the measured ones + one warm-up per client). */
  liveSessions: number;
  /** Heap used before and after the sessions were opened (bytes, after full collections). */
  heapBefore: number;
  heapAfter: number;
  gc: boolean;
}

export async function runIdleSessions(p: IdleParams): Promise<IdleResult> {
  const [cmd, ...args] = p.command;
  if (!cmd) throw new Error('empty agent command');
  return withStartupEnv(async (env) => {
    const home = env['TALARIA_DEMO_HOME'];
    const spec = { command: cmd, args, cwd: ROOT, env: home ? { TALARIA_DEMO_HOME: home } : {} };
    const clients = await Promise.all(
      Array.from({ length: p.processes }, () => AcpClient.spawn(spec, { fs: false, terminal: false })),
    );
    const held: Session[] = [];
    let events = 0;
    const listener = (): void => void events++;
    try {
      for (const c of clients) (await c.newSession({ cwd: ROOT })).subscribe(listener);
      fullGc();
      const before = heapUsed();
      for (let i = 0; i < p.sessions; i++) {
        const s = await clients[i % p.processes]!.newSession({ cwd: ROOT });
        s.subscribe(listener);
        held.push(s);
      }
      fullGc();
      const after = heapUsed();
      const liveSessions = clients.reduce((a, c) => a + c.sessions.size, 0);
      if (held.length !== p.sessions || liveSessions !== p.sessions + p.processes) {
        throw new Error('idle: sessions went missing');
      }
      const per = (after - before) / p.sessions;
      return {
        mbPerSession: per / MB,
        kbPerSession: per / 1024,
        sessions: p.sessions,
        liveSessions,
        heapBefore: before,
        heapAfter: after,
        gc: hasGc(),
      };
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
}
