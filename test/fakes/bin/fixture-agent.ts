/**
 * A recorded real agent as an executable: plays the wire log given as argv[2]
 * (test/fixtures/agents/<agent>/<name>.ndjson) on stdin/stdout, answering each request the
 * client sends with what the agent answered to the recorded one (test/fakes/fixture-player.ts).
 * Started by any command line, so a test can launch "gemini-cli" the way a user's own launcher
 * would, with nothing in the command naming it. Appends every received frame to
 * FIXTURE_AGENT_LOG when set. Exits when stdin closes.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { parseWireLog } from '../../../src/protocol/wire-log.js';
import { playFixture } from '../fixture-player.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: fixture-agent <wire-log.ndjson>\n');
  process.exit(2);
}
const player = playFixture(parseWireLog(readFileSync(file, 'utf8')));
player.agentOut.pipe(process.stdout);
const log = process.env.FIXTURE_AGENT_LOG;
process.stdin.on('data', (chunk: Buffer) => {
  if (log) appendFileSync(log, chunk);
  player.agentIn.write(chunk);
});
process.stdin.on('end', () => {
  player.close();
  process.exit(0);
});
