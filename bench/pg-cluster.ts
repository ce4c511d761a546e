/**
 * A throwaway PostgreSQL cluster for the store's tests and the bench (talaria.store.pg): Debian's `postgresql` binaries, a data folder in
 * a temp dir, a unix socket there (no port to collide with), trust auth for the `talaria` role.
 * initdb refuses to run as root: as root the cluster runs as the `postgres` user the package
 * creates, in a folder that user can reach.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { claimFolder, orphanedFolders } from './owned-folders.js';

export interface Cluster {
  /** `postgres://talaria@/postgres?host=DIR` */
  url: string;
  dir: string;
  stop(): void;
  start(): void;
  /** Runs `sql` (psql, no values) on database `db` (default `postgres`), e.g. CREATE DATABASE. */
  sql(sql: string, db?: string): void;
  /** The URL of database `db` on it. */
  urlOf(db: string): string;
  /** Stops it and removes its folder. */
  destroy(): void;
}

/** Where Debian puts the server binaries (initdb and pg_ctl are not on PATH there). */
export function pgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const v = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return v ? join(root, v, 'bin') : undefined;
}

/**
 * Stops and removes the throwaway clusters whose starting process is gone (a test run or bench
 * killed before its cleanup ran), so servers do not pile up on the machine. Returns their folders.
 */
export function sweepClusters(): string[] {
  const bin = pgBin();
  if (!bin) return [];
  const swept: string[] = [];
  for (const dir of orphanedFolders('/tmp', /^talaria-pg-[A-Za-z0-9]{6}$/)) {
    const asRoot = userInfo().uid === 0;
    const args = ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'];
    try {
      execFileSync(
        asRoot ? 'runuser' : join(bin, 'pg_ctl'),
        asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args] : args,
        {
          stdio: 'ignore',
          cwd: '/',
        },
      );
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
    swept.push(dir);
  }
  return swept;
}

export function startCluster(): Cluster {
  const bin = pgBin();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
  const dir = mkdtempSync('/tmp/talaria-pg-');
  const asRoot = userInfo().uid === 0;
  // Run a server binary as the user that owns the cluster.
  const run = (cmd: string, args: string[]) => {
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, cmd), ...args] : args;
    execFileSync(asRoot ? 'runuser' : join(bin, cmd), argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
  };
  chmodSync(dir, 0o700);
  const owner = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      }
    : undefined;
  // The test process (root) reaches the socket in it; other users do not.
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  // initdb once per machine and server version (~0.6 s); each cluster copies its result (~0.15 s).
  const template = `/tmp/talaria-pg-template-${basename(dirname(bin))}-${userInfo().uid}`;
  if (!existsSync(template)) {
    const fresh = mkdtempSync(`${template}.`);
    if (asRoot) chownSync(fresh, owner!.uid, owner!.gid);
    run('initdb', ['-D', join(fresh, 'data'), '-A', 'trust', '-U', 'talaria', '-E', 'UTF8', '--no-sync']);
    try {
      renameSync(fresh, template); // atomic: another test file may be making one too
    } catch {
      rmSync(fresh, { recursive: true, force: true });
    }
  }
  execFileSync('cp', ['-a', join(template, 'data'), data]);
  // Who started it: a run killed before its cleanup leaves a server behind; sweepClusters stops it.
  claimFolder(dir);
  const opts = `-k ${dir} -c listen_addresses='' -c fsync=off -c full_page_writes=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const urlOf = (db: string) => `postgres://talaria@/${db}?host=${encodeURIComponent(dir)}`;
  return {
    url: urlOf('postgres'),
    dir,
    start,
    stop,
    urlOf,
    sql(sql, db = 'postgres') {
      execFileSync(
        join(bin, 'psql'),
        ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', dir, '-U', 'talaria', '-d', db, '-c', sql],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    },
    destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
