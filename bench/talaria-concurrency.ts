/**
 * Concurrency: S sessions spread over P flood-agent processes (one AcpClient each), all prompted
 * at once, so every client routes interleaved updates of several sessions while the other
 * clients compete for the same cores. Frames sent (the agents' own count, from each prompt's
 * response) must equal frames seen in the threads (updates whose thread event reached the
 * session's subscriber); throughput is the aggregate, first update seen to last turn ended.
 */
import { AcpClient } from '../src/session/client.js';
import type { Session } from '../src/session/session.js';
import { ROOT, framesSentOf } from './flood-driver.js';
import { floodCommand } from './talaria-flood.js';
import { UpdateProbe } from './talaria-probe.js';

export interface ConcurrencyParams {
  sessions: number;
  processes: number;
  /** Frames per session turn. */
  frames: number;
}

export interface ConcurrencyResult {
  framesSent: number;
  framesSeen: number;
  lost: number;
  seconds: number;
  framesPerSec: number;
  /** Sessions whose own count differed (should be 0). */
  badSessions: number;
}

export async function runConcurrency(p: ConcurrencyParams): Promise<ConcurrencyResult> {
  const probes: UpdateProbe[] = [];
  const clients = await Promise.all(
    Array.from({ length: p.processes }, () => {
      const probe = new UpdateProbe(0, false);
      probes.push(probe);
      return AcpClient.spawn(floodCommand({ frames: p.frames }), {
        onFrame: probe.onFrame,
        fs: false,
        terminal: false,
      });
    }),
  );
  try {
    // Round-robin: session i lives on process i % P. Each session counts its own updates.
    const sessions: { session: Session; seen: () => number; probe: UpdateProbe }[] = [];
    for (let i = 0; i < p.sessions; i++) {
      const k = i % p.processes;
      const session = await clients[k]!.newSession({ cwd: ROOT });
      const probe = probes[k]!;
      let seen = 0;
      session.subscribe((e) => {
        const before = probe.seen;
        probe.onEvent(e);
        seen += probe.seen - before; // an event may fold several of this session's updates
      });
      sessions.push({ session, seen: () => seen, probe });
    }
    const results = await Promise.all(sessions.map((s) => s.session.prompt('flood').result));
    const t1 = performance.now();
    let sent = 0;
    let bad = 0;
    results.forEach((r, i) => {
      if (r.error) throw new Error(`concurrency: session ${i} failed: ${r.error.code}: ${r.error.message}`);
      const n = framesSentOf(r.response);
      sent += n;
      if (sessions[i]!.seen() !== n) bad++;
    });
    const seen = sessions.reduce((a, s) => a + s.seen(), 0);
    const t0 = Math.min(...probes.filter((x) => x.seen > 0).map((x) => x.t0));
    const seconds = Math.max(1e-9, (t1 - t0) / 1000);
    return {
      framesSent: sent,
      framesSeen: seen,
      lost: sent - seen,
      seconds,
      framesPerSec: seen / seconds,
      badSessions: bad,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
