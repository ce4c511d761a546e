/**
 * Starting one of the store's worker threads (the SQLite writer, the PostgreSQL connection), one
 * way: the built JavaScript next to this file, or under tsx the TypeScript sources (the worker
 * starts without the parent's TypeScript loader, so tsx compiles it there).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `name` is the entry's base name in this folder (`writer-worker`); `entry` overrides it (tests). */
export function startStoreWorker(name: string, opts: WorkerOptions, entry?: URL): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(entry ?? new URL(`./${name}.js`, here), opts);
  const api = import.meta.resolve('tsx/esm/api');
  const file = (entry ?? new URL(`./${name}.ts`, here)).href;
  const code = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(file)}, ${JSON.stringify(here)}))`;
  return new Worker(code, { ...opts, eval: true });
}
