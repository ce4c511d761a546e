/**
 * How the package runs its own scripts from the sources (os/node-script.ts): the checkout's build
 * of the script when dist/ is the build of the sources (bin/freshness.js says so), else the
 * TypeScript through tsx — never a stale build. Checked in a throwaway checkout beside this one
 * (its node_modules resolve from here), with the real node-script.ts and freshness.js copied in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AcpClient } from '../../src/session/client.js';
import { demoAgentCommand } from '../../src/demo/command.js';
import type { nodeScriptCommand } from '../../src/os/node-script.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const co = join(ROOT, '.cache', `node-script-${process.pid}`);
afterAll(() => rmSync(co, { recursive: true, force: true }));

function checkout(): void {
  for (const d of ['bin', 'src/os', 'src/demo', 'dist/demo']) mkdirSync(join(co, d), { recursive: true });
  copyFileSync(join(ROOT, 'bin/freshness.js'), join(co, 'bin/freshness.js'));
  copyFileSync(join(ROOT, 'src/os/node-script.ts'), join(co, 'src/os/node-script.ts'));
  writeFileSync(join(co, 'src/demo/main.ts'), '');
  writeFileSync(join(co, 'dist/demo/main.js'), '');
  writeFileSync(join(co, 'dist/.build-stamp'), '');
}

/** When a path last changed, `s` seconds ago. */
const aged = (path: string, s: number) =>
  utimesSync(path, new Date(Date.now() - s * 1000), new Date(Date.now() - s * 1000));

/** The throwaway checkout's demo main, as its node-script.ts runs it (loaded afresh: it decides once per module instance). */
async function demoOf(tag: string): Promise<{ command: string; args: string[] }> {
  const url = pathToFileURL(join(co, 'src/os/node-script.ts')).href + `?${tag}`;
  const m = (await import(/* @vite-ignore */ url)) as { nodeScriptCommand: typeof nodeScriptCommand };
  return m.nodeScriptCommand(pathToFileURL(join(co, 'src/demo/command.ts')).href, 'main');
}

describe('the package’s scripts from the sources', () => {
  it('run the build when dist/ is fresh, and the TypeScript once a source is newer than the build', async () => {
    checkout();
    for (const p of ['src/demo/main.ts', 'src/os/node-script.ts', 'src/demo', 'src/os', 'src', 'bin/freshness.js'])
      aged(join(co, p), 60);
    expect((await demoOf('fresh')).args).toEqual([join(co, 'dist/demo/main.js')]);
    // A source edited after the build: the build is stale, and never run.
    aged(join(co, 'dist/.build-stamp'), 120);
    const stale = await demoOf('stale');
    expect(stale.args.at(-1)).toBe(join(co, 'src/demo/main.ts'));
    expect(stale.args.slice(0, 2)).toEqual(['--import', expect.stringContaining('tsx')]);
  });

  it('this checkout’s demo agent starts and answers initialize, whichever it picked', async () => {
    const client = await AcpClient.spawn({ ...demoAgentCommand(), cwd: ROOT });
    try {
      expect(client.info.agentInfo?.name).toBeTruthy();
    } finally {
      await client.close();
    }
  });
});
