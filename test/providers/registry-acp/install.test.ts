import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentEnv } from '../../../src/providers/locate.js';
import {
  installAgent,
  installedProvider,
  listInstalled,
  UV_INSTALL_FIX,
  type AgentEntry,
} from '../../../src/providers/registry-acp/index.js';
import { cleanup, tempDir } from '../helpers.js';
import { agentTarGz, agentZip, npmPackage, serveNpm, sha256, startLoopback, type Loopback } from './helpers.js';

let lb: Loopback;
let tgz: Buffer;
beforeAll(async () => {
  lb = await startLoopback();
  tgz = await agentTarGz(tempDir());
  lb.routes.set('/dl/agent-linux.tar.gz', { body: tgz });
  lb.routes.set('/dl/agent-linux.zip', { body: agentZip() });
});
afterAll(async () => {
  await lb.close();
  cleanup();
});

const ctx = (env: Record<string, string | undefined> = process.env) => currentEnv({ env, platform: 'linux' });

function binaryEntry(archive: string, sha?: string): AgentEntry {
  return {
    id: 'bin-agent',
    name: 'Bin Agent',
    version: '2.0.0',
    description: 'a script agent',
    distribution: {
      binary: {
        'linux-x86_64': {
          archive: `${lb.url}${archive}`,
          cmd: './dist/agent',
          args: ['--acp'],
          env: { BIN_AGENT: '1' },
          ...(sha ? { sha256: sha } : {}),
        },
      },
    },
  };
}

describe('binary distribution', () => {
  it('tar.gz with a matching sha256 installs, and the provider is ready with the entry args and env', async () => {
    const home = tempDir();
    const a = await installAgent(binaryEntry('/dl/agent-linux.tar.gz', sha256(tgz)), { home, ctx: ctx(), arch: 'x64' });
    expect(a.command).toBe(join(home, 'agents', 'bin-agent@2.0.0', 'dist', 'agent'));
    expect(listInstalled(home).agents.map((x) => `${x.id}@${x.version}`)).toEqual(['bin-agent@2.0.0']);
    const p = installedProvider(a);
    expect(p.source).toBe('registry');
    expect(p.env.set).toEqual({ BIN_AGENT: '1' });
    const r = await p.readiness(ctx());
    expect(r.ready).toBe(true);
    expect(r.command).toMatchObject({ command: a.command, args: ['--acp'] });
  });

  it('a sha256 mismatch is refused and nothing is installed', async () => {
    const home = tempDir();
    const err = await installAgent(binaryEntry('/dl/agent-linux.tar.gz', '0'.repeat(64)), {
      home,
      ctx: ctx(),
      arch: 'x64',
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'checksum_mismatch' });
    expect((err as Error).message).toContain(sha256(tgz));
    expect(readdirSync(join(home, 'agents'))).toEqual([]);
  });

  it('zip without mode bits installs an executable cmd', async () => {
    const home = tempDir();
    const a = await installAgent(binaryEntry('/dl/agent-linux.zip'), { home, ctx: ctx(), arch: 'x64' });
    expect((await installedProvider(a).readiness(ctx())).ready).toBe(true);
  });

  it('no archive for this platform, or a missing download: clear errors, nothing left behind', async () => {
    const home = tempDir();
    await expect(
      installAgent(binaryEntry('/dl/agent-linux.tar.gz'), { home, ctx: ctx(), arch: 'arm64' }),
    ).rejects.toMatchObject({ code: 'no_distribution' });
    await expect(installAgent(binaryEntry('/dl/missing.tar.gz'), { home, ctx: ctx(), arch: 'x64' })).rejects.toThrow(
      /HTTP 404/,
    );
    expect(readdirSync(join(home, 'agents'))).toEqual([]);
  });
});

describe('uvx distribution', () => {
  it('without uv: installed, but readiness has a not_installed gap whose fix installs uv', async () => {
    const home = tempDir();
    const entry: AgentEntry = {
      id: 'py-agent',
      name: 'Py Agent',
      version: '0.13.0',
      description: 'x',
      distribution: { uvx: { package: 'py-agent[acp]==0.13.0', cmd: 'py-acp' } },
    };
    const a = await installAgent(entry, { home, ctx: ctx({ PATH: tempDir() }) });
    expect(a).toMatchObject({ command: 'uvx', args: ['--from', 'py-agent[acp]==0.13.0', 'py-acp'] });
    const r = await installedProvider(a).readiness(ctx({ PATH: tempDir() }));
    expect(r.ready).toBe(false);
    expect(r.gaps[0]).toMatchObject({ code: 'not_installed' });
    expect(r.gaps[0]!.fix).toContain(UV_INSTALL_FIX);
  });
});

describe('npx distribution', () => {
  it('installs the exact version from the npm registry into its own folder and runs from there', async () => {
    const home = tempDir();
    const work = tempDir();
    const v1 = await npmPackage(work, lb.url, 'talaria-fake-reg-agent', '1.0.0');
    const v2 = await npmPackage(work, lb.url, 'talaria-fake-reg-agent', '1.1.0');
    serveNpm(lb, 'talaria-fake-reg-agent', [
      { version: '1.0.0', ...v1 },
      { version: '1.1.0', ...v2 },
    ]);
    const entry: AgentEntry = {
      id: 'fake-reg',
      name: 'Fake',
      version: '1.0.0',
      description: 'x',
      distribution: { npx: { package: 'talaria-fake-reg-agent@1.0.0', args: ['--acp'] } },
    };
    const env = {
      ...process.env,
      npm_config_registry: `${lb.url}/`,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
    };
    const a = await installAgent(entry, { home, ctx: ctx(env) });
    expect(a.command).toBe(join(home, 'agents', 'fake-reg@1.0.0', 'node_modules', '.bin', 'talaria-fake-reg-agent'));
    // Pinned: 1.0.0 although 1.1.0 is the latest.
    expect(
      existsSync(join(home, 'agents', 'fake-reg@1.0.0', 'node_modules', 'talaria-fake-reg-agent', 'package.json')),
    ).toBe(true);
    expect(lb.requests.some((r) => r.path === '/tarballs/talaria-fake-reg-agent-1.0.0.tgz')).toBe(true);
    expect(lb.requests.some((r) => r.path === '/tarballs/talaria-fake-reg-agent-1.1.0.tgz')).toBe(false);
    expect((await installedProvider(a).readiness(ctx())).ready).toBe(true);
  }, 120_000);

  it('a package that does not exist: install_failed with npm’s words, nothing installed', async () => {
    const home = tempDir();
    const entry: AgentEntry = {
      id: 'ghost',
      name: 'Ghost',
      version: '1.0.0',
      description: 'x',
      distribution: { npx: { package: 'talaria-no-such-pkg@1.0.0' } },
    };
    const env = {
      ...process.env,
      npm_config_registry: `${lb.url}/`,
      npm_config_cache: join(tempDir(), 'c'),
      npm_config_update_notifier: 'false',
    };
    await expect(installAgent(entry, { home, ctx: ctx(env) })).rejects.toMatchObject({ code: 'install_failed' });
    expect(readdirSync(join(home, 'agents'))).toEqual([]);
  }, 120_000);
});
