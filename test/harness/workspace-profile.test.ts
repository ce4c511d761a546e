/** A workspace's own Hermes profile, over the Hermes emulator: made by the first session, once, then used. */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { setWorkspaceProfile } from '../../src/harness/index.js';
import { workspaceProfileName } from '../../src/providers/hermes/profile-create.js';
import { TalariaError } from '../../src/protocol/errors.js';
import { HERMES_BIN_DIR, HERMES_CONFIG, cleanPath, makeHarness, place, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** A `hermes` that logs each `profile create` and passes everything to the emulator (or fails create). */
function loggingHermes(o: { failCreate?: boolean } = {}): { dir: string; log: string } {
  const dir = tempDir('bin');
  const log = join(dir, 'calls.log');
  const fail = o.failCreate ? `  echo "Error: Source profile 'active' does not exist at /nowhere"; exit 1\n` : '';
  writeFileSync(
    join(dir, 'hermes'),
    `#!/bin/sh\nif [ "$1" = profile ] && [ "$2" = create ]; then\n  echo "$*" >> "${log}"\n${fail}fi\nexec "${HERMES_BIN_DIR}/hermes" "$@"\n`,
  );
  chmodSync(join(dir, 'hermes'), 0o755);
  return { dir, log };
}

const creates = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe("a workspace's own Hermes profile", () => {
  it('is created once by the first sessions (started together) and runs them; warming never creates it', async () => {
    const p = place();
    writeFileSync(join(p.hermesHome, '.env'), 'FAKE_KEY=1\n');
    const bin = loggingHermes();
    const h = makeHarness(p, { hermes: true, vars: { PATH: `${bin.dir}:${cleanPath(true)}` }, warm: false });
    const dir = join(tempDir('ws'), 'My App');
    mkdirSync(dir);
    const ws = h.workspaces.open(dir);
    setWorkspaceProfile(h.workspaces, ws.id, { own: true });
    const name = workspaceProfileName(dir);
    const home = join(p.hermesHome, 'profiles', name);

    await ws.warm({ provider: 'hermes' });
    expect(await ws.catalog({ provider: 'hermes' })).toBeUndefined();
    expect(existsSync(home)).toBe(false);

    const [a, b] = await Promise.all([ws.newSession({ provider: 'hermes' }), ws.newSession({ provider: 'hermes' })]);
    expect([a.profile, b.profile]).toEqual([name, name]);
    expect(creates(bin.log)).toEqual([
      `profile create ${name} --clone --no-alias --description Talaria workspace ${dir}`,
    ]);
    // Its own copies (cloned from the active profile), and the agent runs in it: `hermes -p NAME acp`.
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(HERMES_CONFIG);
    expect(readFileSync(join(home, '.env'), 'utf8')).toBe('FAKE_KEY=1\n');
    const agents = h.host.agents().filter((x) => x.key.provider === 'hermes');
    expect(agents.map((x) => x.key.profile)).toEqual([name]);
    await a.prompt('hello').result;
    expect(h.sessions.find(a.id)?.profile).toBe(name);
    expect(readdirSync(home)).toContain('state.db');

    // An explicit profile still wins; turning the own profile off goes back to Hermes' active one.
    const other = await ws.newSession({ provider: 'hermes', profile: 'default' });
    expect(other.profile).toBe('default');
    setWorkspaceProfile(h.workspaces, ws.id, { own: false });
    expect((await ws.newSession({ provider: 'hermes' })).profile).toBeUndefined();
    expect(creates(bin.log)).toHaveLength(1);
  });

  it('a named profile set on the workspace is used by new sessions; a bad name is refused', async () => {
    const p = place();
    mkdirSync(join(p.hermesHome, 'profiles', 'coder'), { recursive: true });
    writeFileSync(join(p.hermesHome, 'profiles', 'coder', 'config.yaml'), HERMES_CONFIG);
    const h = makeHarness(p, { hermes: true, warm: false });
    const ws = h.workspaces.open(tempDir('ws'));
    setWorkspaceProfile(h.workspaces, ws.id, { profile: 'coder' });
    expect((await ws.newSession({ provider: 'hermes' })).profile).toBe('coder');
    // The demo agent has no profiles: the setting is not its.
    expect((await ws.newSession({ provider: 'demo' })).profile).toBeUndefined();
    expect(() => setWorkspaceProfile(h.workspaces, ws.id, { profile: 'Bad Name' })).toThrow(TalariaError);
    expect(h.store.workspaces.get(ws.id)?.profile).toBe('coder');
  });

  it("a profile Hermes cannot create fails the new session with Hermes' reason", async () => {
    const p = place();
    const bin = loggingHermes({ failCreate: true });
    const h = makeHarness(p, { hermes: true, vars: { PATH: `${bin.dir}:${cleanPath(true)}` }, warm: false });
    const ws = h.workspaces.open(tempDir('ws'));
    setWorkspaceProfile(h.workspaces, ws.id, { own: true });
    const e = await ws.newSession({ provider: 'hermes' }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TalariaError);
    expect((e as TalariaError).message).toMatch(/Hermes could not create profile "talaria-.*": Source profile/);
    expect(h.sessions.list()).toEqual([]);
  });
});
