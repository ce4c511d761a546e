/** `talaria agents search|add|update|remove|--installed` end to end, against a loopback registry and npm registry. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentTarGz,
  npmPackage,
  serveIndex,
  serveNpm,
  sha256,
  startLoopback,
  type Loopback,
} from '../providers/registry-acp/helpers.js';
import { runCli, tempDir } from './helpers.js';

let lb: Loopback;
let env: Record<string, string>;
let home: string;
let cwd: string;
let v1: { tarball: Buffer; packument: Buffer };
let v2: { tarball: Buffer; packument: Buffer };

const npxEntry = (version: string) => ({
  id: 'fake-reg',
  name: 'Fake Registry Agent',
  version,
  description: 'An echo agent for tests',
  distribution: { npx: { package: `talaria-fake-cli-agent@${version}` } },
});

beforeAll(async () => {
  lb = await startLoopback();
  const work = tempDir('reg');
  v1 = await npmPackage(work, lb.url, 'talaria-fake-cli-agent', '1.0.0');
  v2 = await npmPackage(work, lb.url, 'talaria-fake-cli-agent', '1.1.0');
  serveNpm(lb, 'talaria-fake-cli-agent', [{ version: '1.0.0', ...v1 }]);
  const tgz = await agentTarGz(work);
  lb.routes.set('/dl/bin.tar.gz', { body: tgz });
  serveIndex(
    lb,
    [
      npxEntry('1.0.0'),
      {
        id: 'bin-agent',
        name: 'Bin Agent',
        version: '2.0.0',
        description: 'Archive agent',
        distribution: {
          binary: { 'linux-x86_64': { archive: `${lb.url}/dl/bin.tar.gz`, cmd: './dist/agent', sha256: sha256(tgz) } },
        },
      },
      {
        id: 'bad-sum',
        name: 'Bad Sum',
        version: '1.0.0',
        description: 'x',
        distribution: {
          binary: {
            'linux-x86_64': { archive: `${lb.url}/dl/bin.tar.gz`, cmd: './dist/agent', sha256: 'f'.repeat(64) },
          },
        },
      },
      {
        id: 'py-agent',
        name: 'Py Agent',
        version: '0.13.0',
        description: 'uvx only',
        distribution: { uvx: { package: 'py-agent==0.13.0' } },
      },
      { id: 'Broken', name: 'x' },
    ],
    '"idx1"',
  );
  home = tempDir('home');
  cwd = tempDir('cwd');
  env = {
    TALARIA_HOME: join(home, 'talaria'),
    TALARIA_REGISTRY_URL: `${lb.url}/registry.json`,
    npm_config_registry: `${lb.url}/`,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  };
});
afterAll(async () => {
  await lb.close();
});

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('talaria agents (registry)', () => {
  it('search lists valid entries, reports the broken one, and matches name/description', async () => {
    const all = await runCli(['agents', 'search'], { cwd, env });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/fake-reg\s+1\.0\.0\s+npx\s+Fake Registry Agent/);
    expect(all.stdout).toContain('4 of 4 agents');
    expect(all.stderr).toMatch(/registry entry "Broken" skipped/);
    const some = await runCli(['agents', 'search', 'archive'], { cwd, env });
    expect(some.stdout).toContain('bin-agent');
    expect(some.stdout).not.toContain('fake-reg');
  });

  it('add (npx, binary), run a turn with the installed copy, --installed, update, remove', async () => {
    const add = await runCli(['agents', 'add', 'fake-reg', 'bin-agent'], { cwd, env });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('installed fake-reg 1.0.0 (npx talaria-fake-cli-agent@1.0.0)');
    expect(add.stdout).toContain('installed bin-agent 2.0.0 (binary');

    const listed = await runCli(['agents', '--json'], { cwd, env });
    const agents = (JSON.parse(listed.stdout) as { agents: { providerId: string; ready: boolean; source: string }[] })
      .agents;
    expect(agents.find((a) => a.providerId === 'fake-reg')).toMatchObject({ ready: true, source: 'registry' });
    expect(agents.find((a) => a.providerId === 'bin-agent')).toMatchObject({ ready: true, source: 'registry' });

    for (const id of ['fake-reg', 'bin-agent']) {
      const turn = await runCli(['run', '--agent', id, 'hello from the registry'], { cwd, env });
      expect(turn.code, turn.stderr).toBe(0);
      expect(turn.stdout).toContain('hello from the registry');
    }

    const inst = await runCli(['agents', '--installed'], { cwd, env });
    expect(inst.stdout).toMatch(/fake-reg\s+1\.0\.0\s+npx/);

    // A new release appears: update installs it pinned and drops the old folder.
    serveNpm(lb, 'talaria-fake-cli-agent', [
      { version: '1.0.0', ...v1 },
      { version: '1.1.0', ...v2 },
    ]);
    const idx = JSON.parse(lb.routes.get('/registry.json')!.body.toString()) as { agents: unknown[] };
    idx.agents[0] = npxEntry('1.1.0');
    lb.routes.set('/registry.json', { body: Buffer.from(JSON.stringify(idx)), etag: '"idx2"' });
    const up = await runCli(['agents', 'update'], { cwd, env });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain('fake-reg: 1.0.0 → 1.1.0');
    expect(up.stdout).toContain('bin-agent 2.0.0: up to date');
    expect(existsSync(join(env.TALARIA_HOME!, 'agents', 'fake-reg@1.0.0'))).toBe(false);
    const again = await runCli(['run', '--agent', 'fake-reg', 'still here'], { cwd, env });
    expect(again.stdout).toContain('still here');

    const rm = await runCli(['agents', 'remove', 'fake-reg'], { cwd, env });
    expect(rm.stdout).toContain('removed fake-reg 1.1.0');
    const gone = await runCli(['run', '--agent', 'fake-reg', 'x'], { cwd, env });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("unknown agent 'fake-reg'");
  }, 180_000);

  it('a checksum mismatch installs nothing (exit 6); unknown ids and versions are usage errors', async () => {
    const bad = await runCli(['agents', 'add', 'bad-sum'], { cwd, env });
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(/does not match the registry's sha256/);
    expect(existsSync(join(env.TALARIA_HOME!, 'agents', 'bad-sum@1.0.0'))).toBe(false);
    const unknown = await runCli(['agents', 'add', 'nope'], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no agent "nope" in the registry');
    const ver = await runCli(['agents', 'add', 'bin-agent@9.9.9'], { cwd, env });
    expect(ver.code).toBe(2);
    expect(ver.stderr).toContain('the registry offers bin-agent 2.0.0, not 9.9.9');
    // Three CLI processes, each reading the registry: 17 s on a loaded 2-core machine.
  }, 60_000);

  it('uvx without uv: added, and `talaria agents` shows the gap with the fix', async () => {
    const add = await runCli(['agents', 'add', 'py-agent'], { cwd, env });
    expect(add.code, add.stderr).toBe(0);
    const listed = await runCli(['agents', '--json'], { cwd, env: { ...env, PATH: `${tempDir('empty')}` } });
    const py = (
      JSON.parse(listed.stdout) as {
        agents: { providerId: string; ready: boolean; gaps: { code: string; fix: string }[] }[];
      }
    ).agents.find((a) => a.providerId === 'py-agent');
    expect(py).toMatchObject({ ready: false });
    expect(py!.gaps[0]!.fix).toMatch(/Install uv/);
  });

  it('offline: search uses the cache and says how old it is', async () => {
    const r = await runCli(['agents', 'search', '--offline'], { cwd, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/using the cached registry from (just now|\d+ min ago) \(offline\)/);
    expect(r.stdout).toContain('bin-agent');
  });
});
