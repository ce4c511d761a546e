/**
 * The floor of a process hop: a relay that pipes bytes both ways between its parent and the
 * command it runs, parsing nothing. Whatever `talaria acp` adds beyond this relay is Talaria's;
 * what the relay itself adds is one more process on the path (a pipe, a read, a write, a
 * scheduling slot), which no proxy can avoid. Its CPU is read from /proc by the bench (MiddleCpu
 * in talaria-acp.ts), over the same window as the proxy's.
 *
 *   node --import tsx bench/relay.ts CMD ARGS…
 */
import { spawn } from 'node:child_process';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  process.stderr.write('relay: no command\n');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0));
});
