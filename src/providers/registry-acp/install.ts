/**
 * Installs a registry agent, pinned, into $TALARIA_HOME/agents/<id>@<version>:
 * - npx: `npm install --prefix <dir> <package>@<exact version>`; run from that folder's
 *   node_modules/.bin (never `npx` at run time: what runs is what was installed);
 * - binary: this platform's archive, its sha256 checked when the entry gives one (a mismatch
 *   installs nothing), unpacked, `cmd` run with the entry's args and env;
 * - uvx: nothing to download; run as `uvx` (readiness says when uv is missing, with the fix).
 * Work happens in a `.partial-` folder renamed into place at the end, so a failure leaves nothing.
 */
import { runProgram } from '../../os/run-program.js';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ProviderEnv } from '../types.js';
import { RegistryError } from './errors.js';
import { agentsDir, installDir, manifestJson, MANIFEST, type InstalledAgent } from './installed.js';
import {
  platformKey,
  type AgentEntry,
  type BinaryTarget,
  type Distribution,
  type PackageDistribution,
} from './schema.js';

export interface InstallOptions {
  home: string;
  ctx: ProviderEnv;
  /** Install the entry's `preview` instead of its release (only when the user asks). */
  preview?: boolean;
  arch?: string;
  /** Limit for npm install and the download (default 5 min). */
  timeoutMs?: number;
  now?: () => number;
  /** Written to the manifest: the install is a built-in agent's npm package (npm-builtin.ts). */
  origin?: 'npm';
}

export type DistributionChoice =
  | { kind: 'npx'; d: PackageDistribution }
  | { kind: 'binary'; d: BinaryTarget }
  | { kind: 'uvx'; d: PackageDistribution };

/** npx first (pinned install, no runtime beyond Node), then this platform's binary, then uvx. */
export function chooseDistribution(
  dist: Distribution,
  platform: NodeJS.Platform,
  arch: string,
): DistributionChoice | undefined {
  if (dist.npx) return { kind: 'npx', d: dist.npx };
  const key = platformKey(platform, arch);
  const bin = key ? dist.binary?.[key] : undefined;
  if (bin) return { kind: 'binary', d: bin };
  if (dist.uvx) return { kind: 'uvx', d: dist.uvx };
  return undefined;
}

/** "@scope/name@1.2.3" → { name: "@scope/name", version: "1.2.3" }. */
export function splitPackageSpec(spec: string): { name: string; version?: string } {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec };
}

export async function installAgent(entry: AgentEntry, o: InstallOptions): Promise<InstalledAgent> {
  const preview = o.preview === true;
  if (preview && !entry.preview)
    throw new RegistryError('no_distribution', `${entry.id} has no preview release in the registry`, { id: entry.id });
  const version = preview ? entry.preview!.version : entry.version;
  const dist = preview ? entry.preview!.distribution : entry.distribution;
  const arch = o.arch ?? process.arch;
  const choice = chooseDistribution(dist, o.ctx.platform, arch);
  if (!choice) {
    const have = Object.keys(dist.binary ?? {}).join(', ') || 'none';
    throw new RegistryError(
      'no_distribution',
      `${entry.id} ${version} has no distribution for ${o.ctx.platform}-${arch} (binaries: ${have})`,
      { id: entry.id },
    );
  }
  mkdirSync(agentsDir(o.home), { recursive: true });
  const final = installDir(o.home, entry.id, version);
  const work = `${final}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const how = await install(choice, entry, version, work, o);
    const manifest = {
      v: 1 as const,
      id: entry.id,
      name: entry.name,
      version,
      description: entry.description,
      kind: choice.kind,
      // Paths are written for the final folder (the work folder is renamed into place).
      command: how.command.startsWith(work) ? final + how.command.slice(work.length) : how.command,
      args: how.args,
      env: choice.d.env ?? {},
      source: how.source,
      preview,
      installedAt: (o.now ?? Date.now)(),
      ...(o.origin ? { origin: o.origin } : {}),
    };
    writeFileSync(join(work, MANIFEST), manifestJson(manifest));
    rmSync(final, { recursive: true, force: true });
    renameSync(work, final);
    return { ...manifest, dir: final };
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    throw e;
  }
}

async function install(
  c: DistributionChoice,
  entry: AgentEntry,
  version: string,
  dir: string,
  o: InstallOptions,
): Promise<{ command: string; args: string[]; source: string }> {
  if (c.kind === 'uvx') {
    const args = c.d.cmd ? ['--from', c.d.package, c.d.cmd, ...(c.d.args ?? [])] : [c.d.package, ...(c.d.args ?? [])];
    return { command: 'uvx', args, source: c.d.package };
  }
  if (c.kind === 'npx') return installNpm(c.d, entry, version, dir, o);
  return installBinary(c.d, entry, dir, o);
}

async function installNpm(d: PackageDistribution, entry: AgentEntry, version: string, dir: string, o: InstallOptions) {
  const { name, version: pinned } = splitPackageSpec(d.package);
  const spec = `${name}@${pinned ?? version}`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `talaria-agent-${entry.id}`, private: true }) + '\n');
  const r = await runNpm(['install', '--prefix', dir, '--save-exact', '--no-audit', '--no-fund', spec], o);
  if (r.code !== 0) {
    const tail = r.output.trim().split('\n').slice(-6).join('\n');
    throw new RegistryError(
      'install_failed',
      `npm install ${spec} failed (${r.code === null ? 'timed out' : `exit ${r.code}`}):\n${tail}`,
      { id: entry.id },
    );
  }
  const pkgDir = join(dir, 'node_modules', ...name.split('/'));
  const pj = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bins = typeof pj.bin === 'string' ? { [name.split('/').pop()!]: pj.bin } : (pj.bin ?? {});
  const names = Object.keys(bins);
  const bin = d.cmd ?? (names.length === 1 ? names[0] : names.find((n) => n === name.split('/').pop()));
  if (!bin || !(bin in bins)) {
    throw new RegistryError(
      'install_failed',
      `${spec} installed but it has no command${d.cmd ? ` named "${d.cmd}"` : ''} (commands: ${names.join(', ') || 'none'})`,
      {
        id: entry.id,
      },
    );
  }
  return { command: join(dir, 'node_modules', '.bin', bin), args: d.args ?? [], source: spec };
}

async function installBinary(d: BinaryTarget, entry: AgentEntry, dir: string, o: InstallOptions) {
  let res: Response;
  try {
    res = await fetch(d.archive, { signal: AbortSignal.timeout(o.timeoutMs ?? 300_000) });
  } catch (e) {
    throw new RegistryError('install_failed', `download of ${d.archive} failed: ${(e as Error).message}`, {
      id: entry.id,
    });
  }
  if (!res.ok)
    throw new RegistryError('install_failed', `download of ${d.archive} failed: HTTP ${res.status}`, { id: entry.id });
  const data = Buffer.from(await res.arrayBuffer());
  if (d.sha256) {
    const got = createHash('sha256').update(data).digest('hex');
    if (got !== d.sha256.toLowerCase()) {
      throw new RegistryError(
        'checksum_mismatch',
        `${d.archive} does not match the registry's sha256 (expected ${d.sha256.toLowerCase()}, got ${got}); nothing was installed`,
        {
          id: entry.id,
        },
      );
    }
  }
  // On demand: the archive readers (tar, zip, bzip2) load only when an agent is installed.
  const { extractArchive } = await import('./extract.js');
  await extractArchive(data, d.archive, dir, d.cmd);
  const command = resolve(dir, d.cmd);
  const rel = relative(dir, command);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new RegistryError('install_failed', `${entry.id}: cmd "${d.cmd}" points outside its install folder`, {
      id: entry.id,
    });
  if (!existsSync(command))
    throw new RegistryError('install_failed', `${d.archive} has no "${d.cmd}" (the entry's cmd)`, { id: entry.id });
  // Zip entries made on Windows carry no mode bits.
  if (o.ctx.platform !== 'win32') chmodSync(command, 0o755);
  return { command, args: d.args ?? [], source: d.archive };
}

export async function runNpm(
  args: string[],
  o: Pick<InstallOptions, 'ctx' | 'timeoutMs'>,
): Promise<{ code: number | null; output: string }> {
  // npm is our tool, not the agent: it gets the user's environment (their npm config, proxy, registry).
  const r = await runProgram(o.ctx.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
    userEnv: o.ctx.env as NodeJS.ProcessEnv,
    timeoutMs: o.timeoutMs ?? 300_000,
    maxChars: 16_000,
  });
  if (r.error !== undefined) return { code: -1, output: r.error };
  // stderr last: npm's error is what a failure message quotes from the tail.
  return { code: r.signal ? null : r.code, output: `${r.stdout}${r.stderr}` };
}
