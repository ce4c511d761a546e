/** A throwaway workspace and HOME per agent run, and the permission policy every agent gets. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionRule } from '../../../src/permission/types.js';

export const READ_MARKER = 'matrix-read-marker-7f3a';
export const WRITE_MARKER = 'matrix-write-ok';

export interface Workspace {
  root: string;
  cwd: string;
  readPath: string;
  writePath: string;
  deniedPath: string;
  /** A fresh HOME + TMPDIR for one agent process. */
  freshHome(label: string): { home: string; tmp: string };
}

export function makeWorkspace(agent: string): Workspace {
  const root = mkdtempSync(join(tmpdir(), `talaria-matrix-${agent}-`));
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  const readPath = join(cwd, 'notes.txt');
  writeFileSync(readPath, `${READ_MARKER}\n`);
  return {
    root,
    cwd,
    readPath,
    writePath: join(cwd, 'written.txt'),
    deniedPath: join(cwd, 'denied-marker'),
    freshHome(label) {
      const home = join(root, `home-${label}`);
      const tmp = join(root, `tmp-${label}`);
      mkdirSync(home, { recursive: true });
      mkdirSync(tmp, { recursive: true });
      return { home, tmp };
    },
  };
}

/**
 * The policy answering every permission request of the matrix (mode `ask`, last match wins):
 * reads and edits inside the workspace, `echo`/`sleep`/`cat` allowed, `touch` denied. Anything
 * else falls to "ask", which the runner records as a failure (nobody is there to answer).
 */
export function matrixRules(cwd: string): PermissionRule[] {
  return [
    { decision: 'allow', toolKind: ['read', 'search'], pathGlob: `${cwd}/**`, source: 'config' },
    { decision: 'allow', toolKind: ['edit'], pathGlob: `${cwd}/**`, source: 'config' },
    { decision: 'allow', command: 'echo *', source: 'config' },
    { decision: 'allow', command: 'sleep *', source: 'config' },
    { decision: 'allow', command: `timeout --foreground 30 tail -f ${cwd}/*`, source: 'config' },
    { decision: 'allow', command: 'cat *', source: 'config' },
    { decision: 'deny', command: 'touch *', source: 'config' },
  ];
}
