/**
 * `POST /api/run/stream` (issue 16): `POST /api/run` whose answer is the turn itself, as NDJSON.
 * The first line is the run's answer (`{"type":"run", workspace, snapshot, turn}`), then each
 * event of the session after that snapshot, one per line (the `/ws` stream's events), until the
 * run's turn has ended, or its queued prompt left the queue without running (removed, or cleared
 * by a cancel: contract/turn-watch.ts). One request and no WebSocket: what `talaria run` on a warm
 * server needs (the `ws` client and its handshake were a fifth of its start), and what `curl -N`
 * can read.
 *
 * A reader that stops reading is not waited for: past `maxBufferedBytes` its events stop, and once
 * it has read the backlog they resume from the event log (exact, as a `/ws` resync does), or as a
 * `{"type":"snapshot", turnId}` line when the log no longer holds them (`turnId`: the run's turn
 * once known; the run's `turn.ended` follows again when the snapshot already covers it). Events
 * and snapshots are ASCII JSON.
 */
import type { SessionSnapshot } from './contract/index.js';
import { asciiJson, type EventBatch } from './batch.js';
import type { Hub } from './hub.js';
import { TurnWatch } from './contract/turn-watch.js';

export interface RunAnswer {
  workspace: unknown;
  snapshot: SessionSnapshot;
  turn: { id: string; queued: boolean; position: number };
}

const line = (json: string) => Buffer.from(json + '\n', 'latin1');

/**
 * The stream of session `id`, subscribed at once: call it after the snapshot and before the
 * prompt (events are appended synchronously), then `begin` with the run's answer.
 */
export function openRunStream(
  hub: Hub,
  id: string,
  maxBufferedBytes: number,
): { response: Response; begin: (answer: RunAnswer) => void; abort: () => void } {
  const watch = new TurnWatch();
  let c!: ReadableStreamDefaultController<Uint8Array>;
  let head: RunAnswer | undefined;
  /** Batches that came before the answer line (a prompt's first events are appended synchronously). */
  const early: EventBatch[] = [];
  let lastSeq = 0;
  let behind = false;
  let done = false;
  const offEvents = hub.subscribe(id, (ev) => watch.see(ev));
  let offBatches = hub.subscribeBatches(id, (b) => deliver(b));

  const stop = () => {
    done = true;
    offEvents();
    offBatches();
  };
  const finishIfEnded = () => {
    const doneSeq = watch.doneSeq;
    if (doneSeq === undefined || lastSeq < doneSeq || done) return;
    stop();
    c.close();
  };
  const snapshotLine = () => {
    const row = hub.harness.sessions.find(id);
    if (!row) {
      // The session is gone (deleted): nothing more will come.
      stop();
      c.close();
      return;
    }
    const snapshot = hub.snapshot(row);
    lastSeq = snapshot.seq;
    // With the run's turn: a queued prompt may have started inside the gap, where the reader could
    // not see which turn is its own.
    const turnId = watch.turnId;
    c.enqueue(line(asciiJson({ type: 'snapshot', snapshot, ...(turnId !== undefined ? { turnId } : {}) })));
    // A turn's end the snapshot covers goes again after it: a reader learns how the run ended.
    if (watch.end && watch.end.seq <= snapshot.seq) c.enqueue(line(asciiJson(watch.end)));
  };
  function deliver(b: EventBatch): void {
    if (done || behind) return;
    if (!head) return void early.push(b);
    // Over the bound, unless nothing is queued: a batch bigger than the bound still goes to a
    // reader that has read everything (no later read would call `pull` to catch it up).
    const room = c.desiredSize ?? 0;
    if (room < b.bytes && room < maxBufferedBytes) {
      behind = true;
      return;
    }
    c.enqueue(line(b.jsons.join('\n')));
    lastSeq = b.lastSeq;
    if (b.live) snapshotLine();
    finishIfEnded();
  }
  /** The reader has read its backlog: the events it missed, from the log, then live again. */
  const catchUp = () => {
    behind = false;
    offBatches();
    // Pending events go to the other subscribers first: this one gets only what comes after the log read.
    offBatches = hub.subscribeBatches(id, (b) => deliver(b));
    const events = hub.log.after(id, lastSeq);
    if (events === undefined) snapshotLine();
    else if (events.length > 0) {
      c.enqueue(line(events.map((e) => asciiJson(e)).join('\n')));
      lastSeq = events.at(-1)!.seq;
    }
    finishIfEnded();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start: (ctl) => void (c = ctl),
      pull: () => (behind && !done ? catchUp() : undefined),
      cancel: () => stop(),
    },
    { highWaterMark: maxBufferedBytes, size: (chunk) => chunk?.byteLength ?? 0 },
  );
  const response = new Response(stream, {
    headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' },
  });
  return {
    response,
    begin(answer) {
      head = answer;
      lastSeq = answer.snapshot.seq;
      watch.sent(answer.turn);
      c.enqueue(line(asciiJson({ type: 'run', ...answer })));
      for (const b of early.splice(0)) deliver(b);
      finishIfEnded();
    },
    abort: stop,
  };
}
