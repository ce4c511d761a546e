/**
 * Throwaway folders that name the process that made them (a pid in `owner.pid`), so a later run
 * can tell one whose maker died before its cleanup (Ctrl-C, a CI timeout) from one in use: the
 * test run's temp folder (test/run-folder.ts) and the PostgreSQL clusters (pg-cluster.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../src/os/proc-scan.js';

const OWNER_FILE = 'owner.pid';

/** Marks `dir` as this process's. */
export function claimFolder(dir: string): void {
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
}

/** The folders in `parent` whose name matches and whose maker is gone. */
export function orphanedFolders(parent: string, name: RegExp): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(parent)) {
    if (!name.test(entry)) continue;
    const dir = join(parent, entry);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being made right now, or not ours
    }
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) out.push(dir);
  }
  return out;
}
