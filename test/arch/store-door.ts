/**
 * The store behind its own door (issue 36 item 3): SQL lives in src/store, behind repositories,
 * so a second backend (issue 39) replaces one folder. Outside src/store nothing opens SQLite,
 * prepares or runs SQL, or reaches a store's database handle. Files that open a database that
 * is NOT Talaria's are listed with their reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importsOf } from './imports.js';

/** src-relative file → why it may open SQLite: each reads another program's database, never talaria.db. */
export const OTHER_DATABASES: Readonly<Record<string, string>> = {
  'src/providers/hermes/state-db-open.ts': "opens Hermes' own state.db read-only (Hermes owns the file and its schema)",
  'src/providers/hermes/state-db.ts': "reads token counts and cost from Hermes' state.db (opened by state-db-open.ts)",
  'src/providers/hermes/channel-sessions.ts': "reads Hermes' sessions from other channels from its state.db",
};

/** The store's SQLite internals: a file outside src/store importing one of these holds the raw handle. */
const INTERNALS = /(^|\/)store\/(db|db-file|sqlite|migrations\/[\w-]+)\.js$/;

const RULES: readonly { re: RegExp; what: string }[] = [
  // prepare('SELECT …') / prepare<…>(`WITH …`), exec('CREATE …'): SQL text handed to a handle (not a RegExp's exec).
  {
    re: /\.(prepare|exec)\s*(<[^>]*>)?\(\s*['"`]\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|WITH|PRAGMA|BEGIN|COMMIT|VACUUM|ATTACH)\b/gi,
    what: 'runs SQL',
  },
  { re: /\.pragma\s*\(/g, what: 'runs a pragma' },
  // A handle by its usual names, whatever it is handed.
  { re: /\b(db|\w+Db|database)\s*\.\s*(prepare|exec|transaction)\s*\(/g, what: 'uses a database handle' },
  { re: /\bstore\s*\.\s*db\b/gi, what: "reaches the store's database handle" },
];

/** Lines that are comments only (JSDoc and //): prose may name `store.db` or quote SQL. */
const commentLine = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

/** Each breach in `source` as `file:line: what`. */
export function breaches(rel: string, source: string): string[] {
  if (rel.startsWith('src/store/') || OTHER_DATABASES[rel] !== undefined) return [];
  const out: string[] = [];
  for (const imp of importsOf(source)) {
    if (imp.spec === 'better-sqlite3') out.push(`${rel}: imports better-sqlite3`);
    else if (imp.spec.startsWith('.') && INTERNALS.test(imp.spec))
      out.push(`${rel}: imports the store's SQLite internals (${imp.spec})`);
  }
  const lines = source.split('\n');
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  const found: { line: number; text: string }[] = [];
  for (const { re, what } of RULES)
    for (const m of source.matchAll(re)) {
      const line = lineOf(m.index);
      if (!commentLine(lines[line - 1]!)) found.push({ line, text: `${what} (${m[0].replace(/\s+/g, '')})` });
    }
  found.sort((a, b) => a.line - b.line || a.text.localeCompare(b.text));
  return [...out, ...found.map((f) => `${rel}:${f.line}: ${f.text}`)];
}

/** Every breach under `root` (the repository: its src/ is scanned); `faces`: the faces' reaches into the store too. */
export function storeDoorBreaches(root: string, o: { faces?: boolean } = {}): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  return walk(join(root, 'src')).flatMap((file) => {
    const rel = relative(root, file).split(sep).join('/');
    const source = readFileSync(file, 'utf8');
    return o.faces ? faceReaches(rel, source) : breaches(rel, source);
  });
}

/** The faces: they talk to the harness (its workspaces, sessions, permissions), not to its store's repositories. */
const FACES = /^src\/(server|cli|caps|harness\/acp)\//;
const REPOS = 'workspaces|sessions|entries|turns|wire|permissions|defaults|branches|leases|events|capsRefs';
const FACE_REACH = new RegExp(`\\b(?:harness|h)\\s*\\.\\s*store\\s*\\.\\s*(?:${REPOS})\\b`, 'g');

/** src-relative face file → why it still reaches a repository through `harness.store` (left for later). */
export const FACE_REACHES_LEFT: Readonly<Record<string, string>> = {};

/** Each `harness.store.<repository>` in a face, as `file:line: …`. */
export function faceReaches(rel: string, source: string): string[] {
  if (!FACES.test(rel) || FACE_REACHES_LEFT[rel] !== undefined) return [];
  const lines = source.split('\n');
  const out: string[] = [];
  for (const m of source.matchAll(FACE_REACH)) {
    const line = source.slice(0, m.index).split('\n').length;
    if (!commentLine(lines[line - 1]!))
      out.push(`${rel}:${line}: reaches a repository through the harness's store (${m[0].replace(/\s+/g, '')})`);
  }
  return out;
}
