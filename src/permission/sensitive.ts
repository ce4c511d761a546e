/**
 * Sensitive paths: touching them always asks, whatever the mode or rules say (a deny rule
 * still denies). Matching is by path segment / basename, case-insensitive (macOS and Windows
 * file systems are), and accepts both `/` and `\` separators.
 *
 * Decisions worth stating:
 * - `.envrc` IS sensitive: direnv executes it on `cd` and it usually exports secrets.
 * - `.env.example` / `.env.sample` ARE sensitive (they match `.env.*`, as in Hermes; asking
 *   costs a click, guessing wrong leaks a key).
 * - `.gitignore`, `.github/`, `.gitattributes`, `environment.ts`, `docs/git-guide.md` are not.
 * - Public keys (`id_rsa.pub`) are not, unless they sit under `.ssh/` (the whole dir is).
 */

/** Any path with one of these directory segments (the dir itself or anything inside). */
const SENSITIVE_DIRS = new Set(['.git', '.ssh', '.gnupg']);

/** Exact basenames, anywhere. */
const SENSITIVE_NAMES = new Set([
  '.env',
  '.envrc',
  '.npmrc',
  '.netrc',
  '_netrc',
  '.pypirc',
  '.git-credentials',
  '.pgpass',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
]);

/** Private key / keystore extensions. */
const SENSITIVE_EXTS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore'];

/** `<dir>/<name>` pairs: credentials files inside tool config dirs. */
const SENSITIVE_PAIRS: [string, string][] = [
  ['.aws', 'credentials'],
  ['.kube', 'config'],
  ['.docker', 'config.json'],
];

export function isSensitivePath(p: string): boolean {
  if (typeof p !== 'string' || p.length === 0) return false;
  const segs = p
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((s) => s.length > 0 && s !== '.');
  if (segs.length === 0) return false;
  if (segs.some((s) => SENSITIVE_DIRS.has(s))) return true;
  const base = segs[segs.length - 1]!;
  if (SENSITIVE_NAMES.has(base)) return true;
  if (base.startsWith('.env.')) return true;
  if (SENSITIVE_EXTS.some((ext) => base.endsWith(ext))) return true;
  const parent = segs[segs.length - 2];
  return SENSITIVE_PAIRS.some(([dir, name]) => parent === dir && base === name);
}
