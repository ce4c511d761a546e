/**
 * The environment of an offline agent run, built from scratch: nothing of the parent's environment
 * reaches the agent except a fixed PATH, a fresh HOME, LANG and TMPDIR, plus the profile's own
 * variables. Every allow-listed name of src/os/env.ts that we do not set is explicitly unset
 * (spawnAgent starts from that allow-list), and so is IS_SANDBOX (it breaks the Claude adapters).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ENV_ALLOW_LIST } from '../../../src/os/env.js';

export function offlineEnv(o: {
  home: string;
  tmp: string;
  installDir: string;
  extra: Record<string, string>;
}): Record<string, string | undefined> {
  const xdg = {
    XDG_CONFIG_HOME: join(o.home, '.config'),
    XDG_DATA_HOME: join(o.home, '.local', 'share'),
    XDG_CACHE_HOME: join(o.home, '.cache'),
    XDG_STATE_HOME: join(o.home, '.local', 'state'),
  };
  for (const d of Object.values(xdg)) mkdirSync(d, { recursive: true });
  const path = [
    join(o.installDir, 'node_modules', '.bin'),
    dirname(process.execPath),
    '/usr/local/bin',
    '/usr/bin',
    '/bin',
  ].join(':');
  const env: Record<string, string | undefined> = {};
  for (const name of ENV_ALLOW_LIST) env[name] = undefined;
  Object.assign(env, {
    PATH: path,
    HOME: o.home,
    LANG: 'C.UTF-8',
    TMPDIR: o.tmp,
    SHELL: '/bin/bash',
    ...xdg,
    IS_SANDBOX: undefined,
    NO_UPDATE_NOTIFIER: '1',
    DO_NOT_TRACK: '1',
    CI: '1',
  });
  Object.assign(env, o.extra);
  return env;
}
