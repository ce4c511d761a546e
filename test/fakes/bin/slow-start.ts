/** Waits (argv[2] or SLOW_START_MS, default 1500 ms) before it reads anything, then acts as echo-agent. */
const ms = Number(process.argv[2] ?? process.env.SLOW_START_MS ?? 1500);
process.stderr.write(`slow-start: sleeping ${ms} ms\n`);
setTimeout(() => void import('./echo-agent.js'), ms);
