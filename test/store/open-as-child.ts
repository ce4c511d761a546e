/**
 * Child for the read-only / permission tests: opens a store as the user it was started as (the
 * test starts it as `nobody` when it runs as root, since root ignores file modes), tries what a
 * read-only command and a recording command would do, and prints one JSON line of what happened.
 * Usage: open-as-child.ts '<json: {home, readOnly?}>'
 */
import { openStore, storeErrorFrom, type Store } from '../../src/store/index.js';
import { createRecorder } from '../../src/harness/recorder.js';

const o = JSON.parse(process.argv[2] ?? '{}') as { home: string; readOnly?: boolean };
const logs: string[] = [];
const put = (level: string) => (msg: string) => void logs.push(`${level} ${msg}`);
const logger = { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') };
const fail = (e: unknown) => {
  const x = e as { code?: string; message?: string; fix?: string; name?: string };
  return { name: x.name, code: x.code, message: x.message, fix: x.fix };
};

let store: Store;
try {
  store = openStore({ home: o.home, logger, ...(o.readOnly ? { readOnly: true } : {}) });
} catch (e) {
  process.stdout.write(JSON.stringify({ error: fail(e), logs }) + '\n');
  process.exit(0);
}
const out: Record<string, unknown> = { readOnly: store.readOnly, readOnlyReason: store.readOnlyReason, logs };
try {
  out.titles = store.sessions.list().map((s) => s.title);
} catch (e) {
  out.listError = fail(e);
}
try {
  createRecorder(store, { sessionKey: 's1' }).close();
  out.recorder = 'ok';
} catch (e) {
  out.recorder = fail(e);
}
try {
  store.sessions.create({ provider: 'demo', cwd: '/w' });
  out.write = 'ok';
} catch (e) {
  out.write = fail(storeErrorFrom(e, store.path));
}
store.close();
process.stdout.write(JSON.stringify(out) + '\n');
