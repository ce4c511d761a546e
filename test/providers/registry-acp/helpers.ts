/**
 * A loopback HTTP server standing in for the registry CDN, an npm registry (packument + tarball)
 * and archive downloads, with request counts; and builders for the agents they serve (a real
 * npm tarball, tar.gz / zip archives) whose command starts the echo agent (real ACP over a pipe).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';
import { c as tarCreate } from 'tar';
import { nodeCommand } from '../../prebuilt.js';

export const TSX = import.meta.resolve('tsx');
export const ECHO_AGENT = fileURLToPath(new URL('../../fakes/bin/echo-agent.ts', import.meta.url));

export interface Loopback {
  url: string;
  /** path → body (Buffer) and optional etag. */
  routes: Map<string, { body: Buffer; etag?: string; type?: string }>;
  requests: { path: string; ifNoneMatch?: string; status: number }[];
  close(): Promise<void>;
}

export async function startLoopback(): Promise<Loopback> {
  const routes: Loopback['routes'] = new Map();
  const requests: Loopback['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const route = routes.get(path);
    const inm = req.headers['if-none-match'];
    const status = !route ? 404 : route.etag && inm === route.etag ? 304 : 200;
    requests.push({ path, ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}), status });
    if (status !== 200) return void res.writeHead(status).end();
    res
      .writeHead(200, {
        'content-type': route!.type ?? 'application/octet-stream',
        ...(route!.etag ? { etag: route!.etag } : {}),
      })
      .end(route!.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    routes,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** A shell script that starts the echo agent (what a binary distribution's `cmd` would be). */
export function agentScript(): string {
  return `#!/bin/sh\nexec ${nodeCommand(ECHO_AGENT)} "$@"\n`;
}

/** tar.gz with `dist/agent` (the script), built from `work`. */
export async function agentTarGz(work: string): Promise<Buffer> {
  mkdirSync(join(work, 'dist'), { recursive: true });
  writeFileSync(join(work, 'dist', 'agent'), agentScript(), { mode: 0o755 });
  const file = join(work, 'agent.tar.gz');
  await tarCreate({ gzip: true, cwd: work, file, portable: true }, ['dist']);
  return readFileSync(file);
}

export function agentZip(): Buffer {
  const zip = new AdmZip();
  // No mode bits, as from a Windows-made zip: the installer must make cmd executable.
  zip.addFile('dist/agent', Buffer.from(agentScript()));
  return zip.toBuffer();
}

/** A real npm package tarball whose bin starts the echo agent; and its packument for the loopback registry. */
export async function npmPackage(
  work: string,
  base: string,
  name: string,
  version: string,
  o: { bin?: string } = {},
): Promise<{ tarball: Buffer; packument: Buffer }> {
  const bin = o.bin ?? name;
  const pkg = join(work, `${name}-${version}`, 'package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name, version, type: 'module', bin: { [bin]: 'agent.js' } }),
  );
  writeFileSync(
    join(pkg, 'agent.js'),
    `#!/usr/bin/env node\nimport { spawn } from 'node:child_process';\n` +
      // A built-in's readiness asks for its version.
      `if (process.argv.includes('--version')) { console.log(${JSON.stringify(`${name} ${version}`)}); process.exit(0); }\n` +
      `const c = spawn(process.execPath, ['--import', ${JSON.stringify(TSX)}, ${JSON.stringify(ECHO_AGENT)}], { stdio: 'inherit' });\n` +
      `c.on('exit', (code) => process.exit(code ?? 1));\n`,
    { mode: 0o755 },
  );
  const file = join(work, `${name}-${version}.tgz`);
  await tarCreate({ gzip: true, cwd: join(work, `${name}-${version}`), file, portable: true }, ['package']);
  const tarball = readFileSync(file);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  const packument = {
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        name,
        version,
        bin: { [bin]: 'agent.js' },
        dist: { tarball: `${base}/tarballs/${name}-${version}.tgz`, integrity, shasum },
      },
    },
  };
  return { tarball, packument: Buffer.from(JSON.stringify(packument)) };
}

/** Serves several versions of one npm package (the packument lists them all). */
export function serveNpm(
  lb: Loopback,
  name: string,
  pkgs: { version: string; tarball: Buffer; packument: Buffer }[],
): void {
  const versions: Record<string, unknown> = {};
  for (const p of pkgs) {
    lb.routes.set(`/tarballs/${name}-${p.version}.tgz`, { body: p.tarball });
    Object.assign(versions, (JSON.parse(p.packument.toString()) as { versions: Record<string, unknown> }).versions);
  }
  lb.routes.set(`/${name}`, {
    body: Buffer.from(JSON.stringify({ name, 'dist-tags': { latest: pkgs.at(-1)!.version }, versions })),
    type: 'application/json',
  });
}

export function serveIndex(lb: Loopback, agents: unknown[], etag?: string): void {
  lb.routes.set('/registry.json', {
    body: Buffer.from(JSON.stringify({ version: '1.0.0', agents })),
    type: 'application/json',
    ...(etag ? { etag } : {}),
  });
}
