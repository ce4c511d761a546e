/**
 * Plays a recorded wire log back as the AGENT side of a real byte stream: each live client
 * request is matched (by method, in order) to the recorded one, and the agent frames recorded
 * after it are written back as NDJSON, with the response re-addressed to the live id. Recorded
 * agent→client requests wait for the live client's answer; recorded client notifications
 * (session/cancel) wait until the live client sends them. So the real transport, SDK adapter and
 * session core consume exactly what Hermes sent.
 */
import { PassThrough } from 'node:stream';
import type { WireLogLine, RawMessage } from '../../src/protocol/types.js';

interface Segment {
  method: string;
  recordedId: unknown;
  /** Frames after the request, up to the next recorded client request. */
  steps: WireLogLine[];
  used: boolean;
}

export interface FixturePlayer {
  /** Bytes the agent writes (the client reads these). */
  agentOut: PassThrough;
  /** Bytes the client writes (the agent reads these). */
  agentIn: PassThrough;
  /** Methods the client sent that had no recording left (answered -32601). */
  unmatched: string[];
  close(): void;
}

export function playFixture(lines: WireLogLine[]): FixturePlayer {
  const segments: Segment[] = [];
  let cur: Segment | undefined;
  for (const l of lines) {
    const m = l.msg;
    if (l.dir === 'client->agent' && typeof m.method === 'string' && m.id !== undefined) {
      cur = { method: m.method, recordedId: m.id, steps: [], used: false };
      segments.push(cur);
    } else if (cur) cur.steps.push(l);
  }

  const agentOut = new PassThrough();
  const agentIn = new PassThrough();
  const unmatched: string[] = [];
  const waiters = new Map<string, () => void>();
  const seenNotifications: string[] = [];
  let chain: Promise<void> = Promise.resolve();
  let buf = '';

  const write = (msg: RawMessage) => agentOut.write(JSON.stringify(msg) + '\n');

  function waitFor(key: string): Promise<void> {
    const i = seenNotifications.indexOf(key);
    if (i >= 0) {
      seenNotifications.splice(i, 1);
      return Promise.resolve();
    }
    return new Promise((r) => waiters.set(key, r));
  }

  async function play(seg: Segment, liveId: unknown): Promise<void> {
    for (const step of seg.steps) {
      const m = step.msg;
      if (step.dir === 'agent->client') {
        if (m.method === undefined && m.id === seg.recordedId) {
          write({ ...m, id: liveId as never });
          continue;
        }
        if (m.method === undefined) continue; // a response to some other recorded request
        write(m);
        if (m.id !== undefined) await waitFor(`response:${String(m.id)}`);
      } else if (m.method !== undefined && m.id === undefined) {
        await waitFor(`notify:${m.method}`);
      }
    }
  }

  function onMessage(msg: RawMessage): void {
    if (typeof msg.method === 'string' && msg.id !== undefined) {
      const seg = segments.find((s) => !s.used && s.method === msg.method);
      if (!seg) {
        unmatched.push(msg.method);
        write({
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32601, message: 'Method not found', data: { method: msg.method } },
        });
        return;
      }
      seg.used = true;
      // Requests are answered in the order the client sent them, like a single-threaded agent.
      chain = chain.then(() => play(seg, msg.id));
      return;
    }
    const key = msg.method !== undefined ? `notify:${msg.method}` : `response:${String(msg.id)}`;
    const w = waiters.get(key);
    if (w) {
      waiters.delete(key);
      w();
    } else seenNotifications.push(key);
  }

  agentIn.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onMessage(JSON.parse(line) as RawMessage);
    }
  });

  return {
    agentOut,
    agentIn,
    unmatched,
    close() {
      agentOut.end();
    },
  };
}
