/**
 * Fetches the ACP Registry index and keeps it under $TALARIA_HOME/registry/ with its ETag, so a
 * second fetch is a cheap 304 (If-None-Match) and an offline machine still has the last index
 * (its age is reported, so the user knows how old "latest" is).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryError } from './errors.js';
import { parseIndex, type RegistryIndex } from './schema.js';

export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

export interface FetchIndexOptions {
  /** $TALARIA_HOME. */
  home: string;
  /** Default DEFAULT_REGISTRY_URL (TALARIA_REGISTRY_URL overrides it in the CLI). */
  url?: string;
  /** Use only the cache (no network). */
  offline?: boolean;
  timeoutMs?: number;
  now?: () => number;
}

export interface IndexResult {
  index: RegistryIndex;
  url: string;
  /** 'network': a new copy; 'not-modified': the server confirmed the cache (304); 'cache': the network failed or was not asked. */
  from: 'network' | 'not-modified' | 'cache';
  /** When the cached copy was last confirmed by the server (ms epoch). */
  fetchedAt: number;
  ageMs: number;
  /** Why the network was not used (offline, the error), shown with the age. */
  note?: string;
}

interface CacheMeta {
  url: string;
  etag?: string;
  fetchedAt: number;
}

export function registryCacheDir(home: string): string {
  return join(home, 'registry');
}

function readCache(home: string, url: string): { text: string; meta: CacheMeta } | undefined {
  const dir = registryCacheDir(home);
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'registry.meta.json'), 'utf8')) as CacheMeta;
    if (meta.url !== url || typeof meta.fetchedAt !== 'number') return undefined;
    return { text: readFileSync(join(dir, 'registry.json'), 'utf8'), meta };
  } catch {
    return undefined;
  }
}

function writeCache(home: string, text: string, meta: CacheMeta): void {
  const dir = registryCacheDir(home);
  mkdirSync(dir, { recursive: true });
  // The index first: a meta without its index is ignored (readCache fails), never the reverse mismatch.
  writeFileSync(join(dir, 'registry.json'), text);
  writeFileSync(join(dir, 'registry.meta.json'), JSON.stringify(meta));
}

export function formatAge(ms: number): string {
  const m = Math.floor(ms / 60_000);
  if (m < 1) return 'just now';
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} days ago`;
}

export async function fetchIndex(o: FetchIndexOptions): Promise<IndexResult> {
  const url = o.url ?? DEFAULT_REGISTRY_URL;
  const now = o.now ?? Date.now;
  const cached = readCache(o.home, url);
  const fromCache = (note: string): IndexResult => {
    if (!cached) {
      throw new RegistryError(
        'registry_unreachable',
        `the agent registry at ${url} could not be read (${note}) and there is no cached copy; check the network or set TALARIA_REGISTRY_URL`,
        { url },
      );
    }
    return {
      index: parseCached(cached.text, url),
      url,
      from: 'cache',
      fetchedAt: cached.meta.fetchedAt,
      ageMs: now() - cached.meta.fetchedAt,
      note,
    };
  };
  if (o.offline) return fromCache('offline');
  let res: Response;
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (cached?.meta.etag) headers['if-none-match'] = cached.meta.etag;
    res = await fetch(url, { headers, signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) });
  } catch (e) {
    return fromCache(describeFetchError(e));
  }
  if (res.status === 304 && cached) {
    await res.body?.cancel();
    const meta = { ...cached.meta, fetchedAt: now() };
    writeCache(o.home, cached.text, meta);
    return { index: parseCached(cached.text, url), url, from: 'not-modified', fetchedAt: meta.fetchedAt, ageMs: 0 };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return fromCache(`HTTP ${res.status}`);
  }
  const text = await res.text();
  let index: RegistryIndex;
  try {
    index = parseIndex(text);
  } catch (e) {
    // A broken answer never replaces a good cache.
    if (cached) return fromCache((e as Error).message);
    throw new RegistryError('registry_invalid', `${url}: ${(e as Error).message}`, { url });
  }
  const etag = res.headers.get('etag') ?? undefined;
  const fetchedAt = now();
  writeCache(o.home, text, { url, fetchedAt, ...(etag ? { etag } : {}) });
  return { index, url, from: 'network', fetchedAt, ageMs: 0 };
}

function parseCached(text: string, url: string): RegistryIndex {
  try {
    return parseIndex(text);
  } catch (e) {
    throw new RegistryError(
      'registry_invalid',
      `the cached registry index of ${url} is unreadable (${(e as Error).message}); fetch it again when online`,
      { url },
    );
  }
}

function describeFetchError(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return 'timed out';
  return err.cause?.code ?? err.cause?.message ?? err.message;
}

export function hasCachedIndex(home: string): boolean {
  return existsSync(join(registryCacheDir(home), 'registry.json'));
}
