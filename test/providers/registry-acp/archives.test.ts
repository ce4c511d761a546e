/** The other archive kinds (tar.bz2, raw binary), and installed agents in the provider registry. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentEnv } from '../../../src/providers/locate.js';
import { loadRegistry } from '../../../src/providers/registry.js';
import {
  archiveKind,
  installAgent,
  installedProvider,
  type AgentEntry,
} from '../../../src/providers/registry-acp/index.js';
import { cleanup, tempDir } from '../helpers.js';
import { agentScript, agentTarGz, startLoopback, type Loopback } from './helpers.js';

let lb: Loopback;
beforeAll(async () => {
  lb = await startLoopback();
  lb.routes.set('/dl/agent-raw', { body: Buffer.from(agentScript()) });
  lb.routes.set('/dl/agent.tar.gz', { body: await agentTarGz(tempDir()) });
});
afterAll(async () => {
  await lb.close();
  cleanup();
});

const ctx = (env: Record<string, string | undefined> = process.env) => currentEnv({ env, platform: 'linux' });
const entry = (id: string, archive: string, cmd: string): AgentEntry => ({
  id,
  name: `Agent ${id}`,
  version: '1.0.0',
  description: 'x',
  distribution: { binary: { 'linux-x86_64': { archive: `${lb.url}${archive}`, cmd } } },
});

describe('archive kinds', () => {
  it('are told by the file name', () => {
    expect(
      ['a.zip', 'a.tar.gz', 'a.tgz', 'a.tar.bz2', 'a.tar', 'agent'].map((n) => archiveKind(`https://x/${n}`)),
    ).toEqual(['zip', 'tar.gz', 'tar.gz', 'tar.bz2', 'tar', 'raw']);
  });

  it.skipIf(!hasBzip2())('tar.bz2 unpacks', async () => {
    const work = tempDir();
    mkdirSync(join(work, 'dist'));
    writeFileSync(join(work, 'dist', 'agent'), agentScript(), { mode: 0o755 });
    execFileSync('tar', ['-cjf', join(work, 'a.tar.bz2'), '-C', work, 'dist']);
    lb.routes.set('/dl/agent.tar.bz2', { body: readFileSync(join(work, 'a.tar.bz2')) });
    const a = await installAgent(entry('bz-agent', '/dl/agent.tar.bz2', './dist/agent'), {
      home: tempDir(),
      ctx: ctx(),
      arch: 'x64',
    });
    expect(readFileSync(a.command, 'utf8')).toBe(agentScript());
    expect((await installedProvider(a).readiness(ctx())).ready).toBe(true);
  });

  it('a raw binary is the command itself', async () => {
    const a = await installAgent(entry('raw-agent', '/dl/agent-raw', 'agent-raw'), {
      home: tempDir(),
      ctx: ctx(),
      arch: 'x64',
    });
    expect((await installedProvider(a).readiness(ctx())).ready).toBe(true);
  });

  it('a cmd pointing outside the install folder is refused', async () => {
    const home = tempDir();
    await expect(
      installAgent(entry('evil', '/dl/agent.tar.gz', '../../dist/agent'), { home, ctx: ctx(), arch: 'x64' }),
    ).rejects.toThrow(/outside its install folder/);
  });
});

describe('preview releases', () => {
  it('are installed only when asked; an entry without one says so', async () => {
    const home = tempDir();
    const e: AgentEntry = {
      ...entry('pv', '/dl/agent.tar.gz', './dist/agent'),
      preview: { version: '1.1.0-preview.2', distribution: entry('pv', '/dl/agent-raw', 'agent-raw').distribution },
    };
    const release = await installAgent(e, { home, ctx: ctx(), arch: 'x64' });
    expect(release).toMatchObject({ version: '1.0.0', preview: false });
    const preview = await installAgent(e, { home, ctx: ctx(), arch: 'x64', preview: true });
    expect(preview).toMatchObject({ version: '1.1.0-preview.2', preview: true, source: `${lb.url}/dl/agent-raw` });
    await expect(
      installAgent(entry('np', '/dl/agent.tar.gz', './dist/agent'), { home, ctx: ctx(), arch: 'x64', preview: true }),
    ).rejects.toThrow(/has no preview release/);
  });
});

describe('installed agents in the provider registry', () => {
  it('an install replaces the built-in of its id; config.json still wins; a broken manifest is a problem, not a crash', async () => {
    const home = tempDir();
    await installAgent(entry('gemini', '/dl/agent.tar.gz', './dist/agent'), { home, ctx: ctx(), arch: 'x64' });
    await installAgent(entry('other', '/dl/agent.tar.gz', './dist/agent'), { home, ctx: ctx(), arch: 'x64' });
    mkdirSync(join(home, 'agents', 'junk@1.0.0'));
    writeFileSync(join(home, 'agents', 'junk@1.0.0', 'talaria-agent.json'), '{"v": 1}');
    const env = { ...process.env, TALARIA_HOME: home };
    const { registry, problems } = loadRegistry(ctx(env), { home });
    expect(registry.require('gemini').source).toBe('registry');
    expect(registry.require('other').label).toBe('Agent other');
    expect(problems.join('\n')).toMatch(/installed agent junk@1\.0\.0 skipped: unreadable talaria-agent\.json/);

    writeFileSync(join(home, 'config.json'), JSON.stringify({ agents: { other: { command: '/bin/true' } } }));
    const withConfig = loadRegistry(ctx(env), { home }).registry;
    expect(withConfig.require('other').source).toBe('config');
  });
});

function hasBzip2(): boolean {
  try {
    execFileSync('bzip2', ['--help'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
