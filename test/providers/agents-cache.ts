/**
 * Installs an npm ACP adapter on demand into the git-ignored `.cache/agents/<name>@<version>`
 * folder of the repo (`npm install --prefix <dir> --no-save`), never into package.json.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface Installed {
  dir: string;
  bin: string;
}

export async function installAgent(pkg: string, version: string, bin: string): Promise<Installed | { error: string }> {
  const name = pkg.split('/').pop()!;
  const dir = join(REPO, '.cache', 'agents', `${name}@${version}`);
  const binDir = join(dir, 'node_modules', '.bin');
  if (existsSync(join(binDir, bin))) return { dir, bin: binDir };
  mkdirSync(dir, { recursive: true });
  const out = await new Promise<{ code: number | null; log: string }>((resolve) => {
    let log = '';
    const child = spawn('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `${pkg}@${version}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('error', (e) => resolve({ code: null, log: e.message }));
    child.on('close', (code) => resolve({ code, log }));
  });
  if (out.code !== 0 || !existsSync(join(binDir, bin))) return { error: `npm install ${pkg}@${version} failed (exit ${out.code}): ${out.log.trim().split('\n').slice(-3).join(' | ')}` };
  return { dir, bin: binDir };
}
