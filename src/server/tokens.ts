/**
 * Server tokens: 256-bit random, stored hashed (sha256) with a role in <home>/server-tokens.json.
 * The token a `talaria serve` run prints is held only in memory (hashed too) for that run.
 * `talaria serve tokens list|add|revoke` edits the file; a running server watches it, so a
 * revoked token's live sockets close at once.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import type { Role } from './contract/index.js';

export interface TokenRecord {
  id: string;
  /** sha256 of the token, hex. */
  hash: string;
  role: Role;
  label?: string;
  createdAt: number;
}

export interface TokenIdentity {
  id: string;
  role: Role;
  label?: string;
}

export const TOKENS_FILE = 'server-tokens.json';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function readTokens(file: string): TokenRecord[] {
  if (!existsSync(file)) return [];
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { tokens?: TokenRecord[] };
  return Array.isArray(parsed.tokens) ? parsed.tokens : [];
}

function writeTokens(file: string, tokens: TokenRecord[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ tokens }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Adds a token to the file; the token itself is returned once and never stored. */
export function addToken(file: string, role: Role, label?: string): { token: string; record: TokenRecord } {
  const token = newToken();
  const record: TokenRecord = {
    id: randomUUID().slice(0, 8),
    hash: hashToken(token),
    role,
    createdAt: Date.now(),
    ...(label ? { label } : {}),
  };
  writeTokens(file, [...readTokens(file), record]);
  return { token, record };
}

/** Removes a token by id (or unique id prefix); false when none matched. */
export function revokeToken(file: string, id: string): TokenRecord | undefined {
  const all = readTokens(file);
  const hits = all.filter((t) => t.id === id || t.id.startsWith(id));
  if (hits.length !== 1) return undefined;
  writeTokens(
    file,
    all.filter((t) => t !== hits[0]),
  );
  return hits[0];
}

/** The tokens a running server accepts: the file's (re-read when it changes) + its own start token. */
export class TokenRegistry {
  private byHash = new Map<string, TokenIdentity>();
  private readonly ephemeral = new Map<string, TokenIdentity>();
  private watcher: FSWatcher | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly file: string | undefined) {
    this.reload();
    if (file) {
      mkdirSync(dirname(file), { recursive: true });
      // Watch the folder: the file is replaced by rename, which a watch on the file itself misses.
      this.watcher = watch(dirname(file), (_ev, name) => {
        if (name === null || name === basename(file)) this.changed();
      });
    }
  }

  /** Adds an in-memory token (the one `talaria serve` prints). */
  addEphemeral(role: Role, label: string): { token: string; identity: TokenIdentity } {
    const token = newToken();
    const identity: TokenIdentity = { id: `run-${randomUUID().slice(0, 8)}`, role, label };
    this.ephemeral.set(hashToken(token), identity);
    return { token, identity };
  }

  verify(token: string | undefined): TokenIdentity | undefined {
    if (!token) return undefined;
    const h = hashToken(token);
    return this.ephemeral.get(h) ?? this.byHash.get(h);
  }

  /** Is this identity still accepted (after a revoke)? */
  valid(id: string): boolean {
    for (const t of this.ephemeral.values()) if (t.id === id) return true;
    for (const t of this.byHash.values()) if (t.id === id) return true;
    return false;
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.reload();
    for (const fn of this.listeners) fn();
  }

  reload(): void {
    const next = new Map<string, TokenIdentity>();
    if (this.file) {
      let records: TokenRecord[] = [];
      try {
        records = readTokens(this.file);
      } catch {
        return; // a half-written file: keep the last good set until the next change
      }
      for (const r of records) next.set(r.hash, { id: r.id, role: r.role, ...(r.label ? { label: r.label } : {}) });
    }
    this.byHash = next;
  }

  close(): void {
    this.watcher?.close();
    this.listeners.clear();
  }
}

export function tokensFile(home: string): string {
  return join(home, TOKENS_FILE);
}
