/**
 * The floor of a process hop: a relay that pipes bytes both ways between its parent and the
 * command it runs, parsing nothing. Whatever `talaria acp` adds beyond this relay is Talaria's;
 * what the relay itself adds is one more process on the path (a pipe, a read, a write, a
 * scheduling slot), which no proxy can avoid.
 *
 * `--cpu-out FILE`: at exit, the relay writes the CPU it used from the first `session/prompt` it
 * passed on (its start-up excluded) as `{"user":µs,"system":µs}`, for CPU per frame.
 *
 *   node --import tsx bench/relay.ts [--cpu-out FILE] CMD ARGS…
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const cpuOut = argv[0] === '--cpu-out' ? argv[1] : undefined;
const [cmd, ...args] = cpuOut === undefined ? argv : argv.slice(2);
if (!cmd) {
  process.stderr.write('relay: no command\n');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);

let fromPrompt: NodeJS.CpuUsage | undefined;
if (cpuOut !== undefined) {
  const spot = (chunk: Buffer): void => {
    if (!chunk.includes('"session/prompt"')) return;
    fromPrompt = process.cpuUsage();
    process.stdin.off('data', spot);
  };
  process.stdin.on('data', spot);
}
child.on('exit', (code, signal) => {
  if (cpuOut !== undefined && fromPrompt) writeFileSync(cpuOut, JSON.stringify(process.cpuUsage(fromPrompt)));
  process.exit(code ?? (signal ? 1 : 0));
});
