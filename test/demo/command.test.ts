/**
 * How the demo agent is started from the sources (tests, a checkout through tsx): the built agent
 * when dist/ is the build of the sources (bin/freshness.js says so), else the TypeScript through
 * tsx — never a stale build. Checked in a throwaway checkout beside this one (its node_modules
 * resolve from here), with the real command.ts and freshness.js copied in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { demoAgentCommand } from '../../src/demo/command.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const co = join(ROOT, '.cache', `demo-command-${process.pid}`);
afterAll(() => rmSync(co, { recursive: true, force: true }));

function checkout(): void {
  for (const d of ['bin', 'src/demo', 'dist/demo']) mkdirSync(join(co, d), { recursive: true });
  copyFileSync(join(ROOT, 'bin/freshness.js'), join(co, 'bin/freshness.js'));
  copyFileSync(join(ROOT, 'src/demo/command.ts'), join(co, 'src/demo/command.ts'));
  writeFileSync(join(co, 'src/demo/main.ts'), '');
  writeFileSync(join(co, 'dist/demo/main.js'), '');
  writeFileSync(join(co, 'dist/.build-stamp'), '');
}

/** When a path last changed, `s` seconds ago. */
const aged = (path: string, s: number) =>
  utimesSync(path, new Date(Date.now() - s * 1000), new Date(Date.now() - s * 1000));

/** command.ts of the throwaway checkout, loaded afresh (it decides once per module instance). */
async function commandOf(tag: string): Promise<{ command: string; args: string[] }> {
  const url = pathToFileURL(join(co, 'src/demo/command.ts')).href + `?${tag}`;
  const m = (await import(/* @vite-ignore */ url)) as { demoAgentCommand: typeof demoAgentCommand };
  return m.demoAgentCommand();
}

describe('the demo agent from the sources', () => {
  it('runs the build when dist/ is fresh, and the TypeScript once a source is newer than the build', async () => {
    checkout();
    for (const p of ['src/demo/main.ts', 'src/demo/command.ts', 'src/demo', 'src', 'bin/freshness.js'])
      aged(join(co, p), 60);
    expect((await commandOf('fresh')).args).toEqual([join(co, 'dist/demo/main.js')]);
    // A source edited after the build: the build is stale, and never run.
    aged(join(co, 'dist/.build-stamp'), 120);
    const stale = await commandOf('stale');
    expect(stale.args.at(-1)).toBe(join(co, 'src/demo/main.ts'));
    expect(stale.args.slice(0, 2)).toEqual(['--import', expect.stringContaining('tsx')]);
  });

  it('this checkout’s command starts a demo agent that answers initialize, whichever it picked', async () => {
    const { command, args } = demoAgentCommand();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.write(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }) + '\n',
    );
    let out = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const nl = out.indexOf('\n');
        if (nl !== -1) resolve(out.slice(0, nl));
      });
      child.on('exit', (code) => reject(new Error(`the demo agent exited (${code}) before it answered`)));
    });
    child.stdin.end();
    expect(JSON.parse(line)).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
  });
});
