#!/usr/bin/env node
// `npm test`'s static checks side by side: typecheck, eslint and prettier. typecheck and eslint are
// each one mostly single-threaded TypeScript program build (~80 s and ~90 s from a fresh clone on
// 2 cores); prettier (~30 s of CPU) runs beside them rather than after eslint, so the checks take
// about as long as the slowest one instead of eslint plus prettier. Output is kept per check and
// printed whole when it ends (interleaved lines from two tools are unreadable); the exit code is
// the first failure's.
import { spawn } from 'node:child_process';

const checks = process.argv.slice(2);
if (checks.length === 0) {
  process.stderr.write('usage: node bin/checks.js SCRIPT... (npm scripts run side by side)\n');
  process.exit(2);
}
const codes = await Promise.all(
  checks.map(
    (script) =>
      new Promise((resolve) => {
        const t0 = performance.now();
        const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [];
        child.stdout.on('data', (c) => out.push(c));
        child.stderr.on('data', (c) => out.push(c));
        child.on('error', (err) => out.push(Buffer.from(`${String(err)}\n`)));
        child.on('close', (code, signal) => {
          const secs = ((performance.now() - t0) / 1000).toFixed(0);
          process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (${signal ?? code})`} in ${secs} s\n`);
          process.stdout.write(Buffer.concat(out));
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exit(codes.find((c) => c !== 0) ?? 0);
