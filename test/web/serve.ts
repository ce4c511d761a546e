/**
 * A real `talaria serve` for the browser tests: the CLI as a child process on a free loopback
 * port, with its own TALARIA_HOME and a workspace folder, the demo agent (no streaming delay
 * unless asked) — and the URL it prints. Stopped with SIGTERM (graceful), then its group killed.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_ROOT } from './build.js';
import { nodeArgs } from '../prebuilt.js';

const BIN = fileURLToPath(new URL('../../bin/talaria.js', import.meta.url));
const SDK_AGENT = fileURLToPath(new URL('../fakes/sdk-agent.ts', import.meta.url));
const HERMES_BIN = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));

export interface Served {
  /** The printed link, `http://127.0.0.1:PORT/#token=…`. */
  url: string;
  origin: string;
  token: string;
  /** A folder the tests open as a workspace. */
  project: string;
  home: string;
  output(): string;
  /** `talaria serve tokens add [--observer]` against this server's home: the new token. */
  addToken(role: 'controller' | 'observer', label: string): string;
  /** A `talaria` command in the project folder against this server's home (as a person would type it there). */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Stops the server (SIGTERM, as a person would) and starts it again on the same home: `url` and `origin` are the new ones (`--port 0`; the token lasts). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServeOptions {
  chunkDelayMs?: number;
  env?: Record<string, string>;
  args?: string[];
  /** Written to TALARIA_HOME/config.json before the start (agents, defaultProvider…). */
  config?: Record<string, unknown>;
  /** Put the Hermes emulator (test/fakes/hermes) on PATH, configured with a fake model. */
  hermes?: boolean;
  /** More of the emulator's config.yaml (e.g. `compression:` settings), after the model. */
  hermesConfig?: string;
}

/** `agents` entry for the SDK fake agent (test/fakes/sdk-agent.ts) with env switches. */
export function sdkAgent(env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: nodeArgs(SDK_AGENT), env };
}

export async function startServe(o: ServeOptions = {}): Promise<Served> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'talaria-web-')));
  const project = join(home, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, 'talaria'), { recursive: true });
  if (o.config) writeFileSync(join(home, 'talaria', 'config.json'), JSON.stringify(o.config));
  const hermesEnv: Record<string, string> = {};
  if (o.hermes) {
    const hh = join(home, 'hermes');
    mkdirSync(hh, { recursive: true });
    writeFileSync(
      join(hh, 'config.yaml'),
      `model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n${o.hermesConfig ?? ''}`,
    );
    Object.assign(hermesEnv, { PATH: `${HERMES_BIN}:${process.env.PATH ?? ''}`, HERMES_HOME: hh });
  }
  const argv = [BIN, 'serve', '--port', '0', ...(o.args ?? [])];
  const env = {
    ...process.env,
    TALARIA_HOME: join(home, 'talaria'),
    TALARIA_DEMO_HOME: join(home, 'demo'),
    TALARIA_DEMO_CHUNK_DELAY_MS: String(o.chunkDelayMs ?? 0),
    TALARIA_WEB_ROOT: WEB_ROOT,
    // No network beyond loopback: the Agents page's ACP Registry read goes to a closed port unless a test serves one.
    TALARIA_REGISTRY_URL: 'http://127.0.0.1:9/registry.json',
    NO_COLOR: '1',
    ...hermesEnv,
    ...o.env,
  };
  let out = '';
  const launch = async (): Promise<{ child: ChildProcess; url: string }> => {
    const started: ChildProcess = spawn(process.execPath, argv, {
      cwd: project,
      detached: true,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const printed = out.length;
    const link = await new Promise<string>((resolve, reject) => {
      const onData = (c: Buffer): void => {
        out += c.toString('utf8');
        const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(out.slice(printed));
        if (m) resolve(m[1]!);
      };
      started.stdout!.on('data', onData);
      started.stderr!.on('data', onData);
      started.once('exit', (code) =>
        reject(new Error(`talaria serve exited (${code}) before printing its URL:\n${out}`)),
      );
    });
    return { child: started, url: link };
  };
  let { child, url } = await launch();
  const terminate = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 10_000);
      await gone;
      clearTimeout(t);
    }
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* the group is gone */
    }
  };
  const linkParts = (link: string) => {
    const u = new URL(link);
    return { url: link, origin: u.origin, token: new URLSearchParams(u.hash.slice(1)).get('token')! };
  };
  const served: Served = {
    ...linkParts(url),
    project,
    home,
    output: () => out,
    addToken(role, label) {
      const args = [BIN, 'serve', 'tokens', 'add', '--label', label, ...(role === 'observer' ? ['--observer'] : [])];
      const printed = execFileSync(process.execPath, args, { cwd: project, env, encoding: 'utf8' });
      const m = /: ([\w-]{20,})\n/.exec(printed);
      if (!m) throw new Error(`no token in: ${printed}`);
      return m[1]!;
    },
    cli(args) {
      return new Promise((resolve) => {
        execFile(process.execPath, [BIN, ...args], { cwd: project, env, encoding: 'utf8' }, (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      });
    },
    async restart() {
      await terminate();
      ({ child, url } = await launch());
      Object.assign(served, linkParts(url));
    },
    async stop() {
      await terminate();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return served;
}
