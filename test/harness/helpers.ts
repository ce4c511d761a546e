/** Harnesses over the real demo agent and the Hermes emulator, in temp homes (never ~/.talaria). */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterFile } from '../file-end.js';
import { createHarness } from '../../src/harness/index.js';
import type { HarnessExtras, Harness, HarnessOptions } from '../../src/harness/index.js';
import { currentEnv } from '../../src/providers/locate.js';
import type { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/session/events.js';

export const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2', import.meta.url));
export const HERMES_CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

const dirs: string[] = [];
const open: Harness[] = [];
afterFile(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'h'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `talaria-harness-${prefix}-`)));
  dirs.push(d);
  return d;
}

/** A PATH with node and the basics, but no agents (plus the Hermes emulator when asked). */
export function cleanPath(hermes = false): string {
  return [...(hermes ? [HERMES_BIN_DIR] : []), dirname(process.execPath), '/usr/bin', '/bin'].join(':');
}

export interface Place {
  /** Talaria's home. */
  home: string;
  /** The demo agent's own session folder (its "memory"). */
  demoHome: string;
  /** The user's HOME (no editors' settings, no ~/.hermes). */
  userHome: string;
  /** HERMES_HOME (configured unless `hermes: 'unconfigured'`). */
  hermesHome: string;
}

export function place(o: { hermes?: 'configured' | 'unconfigured' } = {}): Place {
  const hermesHome = tempDir('hermes');
  if (o.hermes !== 'unconfigured') writeFileSync(join(hermesHome, 'config.yaml'), HERMES_CONFIG);
  return { home: tempDir('home'), demoHome: tempDir('demo'), userHome: tempDir('user'), hermesHome };
}

export function makeHarness(
  p: Place,
  o: { hermes?: boolean; vars?: Record<string, string> } & Omit<HarnessOptions, 'env'> = {},
): Harness & HarnessExtras {
  const { hermes, vars: extra, ...rest } = o;
  const env = currentEnv({
    env: {
      PATH: cleanPath(hermes),
      HOME: p.userHome,
      TALARIA_HOME: p.home,
      TALARIA_DEMO_HOME: p.demoHome,
      TALARIA_DEMO_CHUNK_DELAY_MS: '0',
      HERMES_HOME: p.hermesHome,
      ...extra,
    },
    homeDir: p.userHome,
  });
  const h = createHarness({ env, host: { terminateGraceMs: 500 }, ...rest });
  open.push(h);
  return h;
}

export function texts(
  s: { thread: Session['thread'] },
  kind: 'user_message' | 'assistant_message' = 'user_message',
): string[] {
  return s.thread.entries.filter((e) => e.kind === kind).map((e) => (e as { text: string }).text);
}

export function waitFor(
  s: { subscribe(fn: (e: SessionEvent) => void): () => void },
  pred: (e: SessionEvent) => boolean,
): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const off = s.subscribe((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
}
