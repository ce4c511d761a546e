/**
 * A built-in agent installed from its own npm package (`Provider.npm`): the registry's pinned npm
 * install (install.ts: one folder per version, renamed into place, nothing left on failure),
 * marked `origin: 'npm'`, and run as that built-in — its env, checks, sign-in and quirks — with the
 * install folder's node_modules/.bin searched before PATH. An install from the registry instead
 * replaces the built-in (provider.ts); this one only tells the built-in where its command is.
 */
import { join } from 'node:path';
import type { Provider } from '../types.js';
import { RegistryError } from './errors.js';
import { installAgent, runNpm, type InstallOptions } from './install.js';
import type { InstalledAgent } from './installed.js';
import { agentEntrySchema } from './schema.js';

/** The version npm's `latest` tag names for `pkg`. */
export async function npmLatest(pkg: string, o: Pick<InstallOptions, 'ctx' | 'timeoutMs'>): Promise<string> {
  const r = await runNpm(['view', `${pkg}@latest`, 'version', '--json'], o);
  // npm may put notices around the answer: the version is the one JSON string line.
  const line = r.output
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^"[^"]+"$/.test(l));
  if (r.code !== 0 || !line) {
    const tail = r.output.trim().split('\n').slice(-4).join('\n');
    throw new RegistryError(
      'install_failed',
      `npm has no version of ${pkg} to install (npm view ${r.code === null ? 'timed out' : `exit ${r.code}`}):\n${tail}`,
      { package: pkg },
    );
  }
  return JSON.parse(line) as string;
}

/** Installs `p`'s npm package (`version`, else npm's latest) as that built-in agent. */
export async function installFromNpm(
  p: Pick<Provider, 'id' | 'label' | 'npm'>,
  o: InstallOptions & { version?: string },
): Promise<InstalledAgent> {
  const npm = p.npm;
  if (!npm)
    throw new RegistryError('no_distribution', `${p.label} has no npm package Talaria can install`, { id: p.id });
  const version = o.version ?? (await npmLatest(npm.package, o));
  // The schema checks the version is plain semver: nothing else reaches npm's package spec.
  const entry = agentEntrySchema.safeParse({
    id: p.id,
    name: p.label,
    version,
    description: `${p.label} from npm (${npm.package})`,
    distribution: { npx: { package: `${npm.package}@${version}`, cmd: npm.bin } },
  });
  if (!entry.success)
    throw new RegistryError('agent_unknown', `"${version}" is not a version of ${npm.package} (want e.g. 1.2.3)`, {
      id: p.id,
    });
  return installAgent(entry.data, { ...o, origin: 'npm' });
}

/** The built-in `p` found in its npm install folder first (PATH after, as before). */
export function withNpmInstall(p: Provider, a: InstalledAgent): Provider {
  const bin = join(a.dir, 'node_modules', '.bin');
  return {
    ...p,
    npmInstalled: a.version,
    locate: async (ctx, lo) => {
      const found = await p.locate({ ...ctx, searchPath: [bin, ...(ctx.searchPath ?? [])] }, lo);
      return found?.command.startsWith(bin) ? { ...found, via: `npm ${a.version} (talaria agents add)` } : found;
    },
  };
}
