/**
 * A second (or third) Talaria process writing the same store, for the concurrent-writer tests.
 * Usage: writer-child.ts <json options>
 *   {"mode":"recorder","home","sessionKey","tag","frames"}
 *       records `frames` frames (text "<tag> <k>") into sessionKey's log, in bursts, as fast as
 *       it can; prints `lost=<n>` and exits 1 if any batch was lost.
 *   {"mode":"harness","env":{…},"workspace","sessionId","prompt","waitMs"}
 *       opens stored session `sessionId` through a harness (waiting up to waitMs for its lease),
 *       prints `opened`, waits for a line on stdin, sends `prompt`, prints `result <stopReason>`;
 *       a failure prints `error <code>` and exits 3.
 */
import { createInterface } from 'node:readline';
import { createHarness } from '../../src/harness/index.js';
import { createRecorder } from '../../src/harness/recorder.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import { currentEnv } from '../../src/providers/locate.js';
import { openStore } from '../../src/store/index.js';

const o = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const say = (s: string) => process.stdout.write(s + '\n');

async function recorder(): Promise<number> {
  const store = openStore({ home: String(o.home) });
  const rec = createRecorder(store, {
    sessionKey: String(o.sessionKey),
    onError: (e) => process.stderr.write(`recorder error: ${e.message}\n`),
  });
  const total = Number(o.frames);
  let k = 0;
  await new Promise<void>((done) => {
    const burst = () => {
      for (let i = 0; i < 1 + (k % 17) && k < total; i++) {
        k++;
        const msg = {
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId: 'x',
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${o.tag} ${k}` } },
          },
        };
        rec.onFrame({ t_ms: k, dir: 'agent->client', msg, raw: JSON.stringify(msg) });
      }
      if (k < total) setImmediate(burst);
      else done();
    };
    burst();
  });
  rec.close();
  store.close();
  say(`lost=${rec.lostFrames}`);
  return rec.lostFrames === 0 && rec.error === undefined ? 0 : 1;
}

async function harness(): Promise<number> {
  const env = o.env as Record<string, string>;
  const h = createHarness({
    env: currentEnv({ env, homeDir: env.HOME! }),
    host: { terminateGraceMs: 500 },
    sessionWaitMs: Number(o.waitMs ?? 0),
    onSessionWait: (e) => say(`waiting for ${e.pid}`),
  });
  try {
    say('opening');
    const s = await h.workspaces.open(String(o.workspace)).openSession(String(o.sessionId));
    say('opened');
    const lines = createInterface({ input: process.stdin });
    await new Promise<void>((r) => lines.once('line', () => r()));
    lines.close();
    const r = await s.prompt(String(o.prompt)).result;
    say(`result ${r.stopReason}${s.recording.error ? ` recording_failed` : ''}`);
    return r.stopReason === 'end_turn' && !s.recording.error ? 0 : 1;
  } catch (e) {
    say(`error ${isTalariaError(e) ? e.code : String(e)}`);
    return 3;
  } finally {
    await h.close();
  }
}

const run = o.mode === 'recorder' ? recorder : harness;
run().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`writer-child failed: ${String(e)}\n`);
    process.exit(2);
  },
);
