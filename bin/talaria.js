#!/usr/bin/env node
// The `talaria` command: the compiled CLI when the package is built (dist/), otherwise the
// TypeScript source through tsx (a checkout), with tsx resolved from this package.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(fileURLToPath(dist))) {
  await import(dist.href);
} else {
  const { register } = await import(import.meta.resolve('tsx/esm/api'));
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
