import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchIndex, parseIndex, RegistryError } from '../../../src/providers/registry-acp/index.js';
import { cleanup, tempDir } from '../helpers.js';
import { serveIndex, startLoopback, type Loopback } from './helpers.js';

const GOOD = {
  id: 'codex-acp',
  name: 'Codex',
  version: '1.4.0',
  description: 'Codex over ACP',
  distribution: { npx: { package: '@agentclientprotocol/codex-acp@1.4.0' } },
};

let lb: Loopback;
beforeAll(async () => {
  lb = await startLoopback();
});
afterAll(async () => {
  await lb.close();
  cleanup();
});

describe('registry index', () => {
  it('validates entries: bad ones are skipped and named, good ones kept', () => {
    const idx = parseIndex(
      JSON.stringify({
        version: '1.0.0',
        agents: [
          GOOD,
          { ...GOOD, id: 'Bad_Id' },
          { ...GOOD, id: 'no-dist', distribution: {} },
          {
            ...GOOD,
            id: 'bad-sha',
            distribution: { binary: { 'linux-x86_64': { archive: 'https://x/a.tgz', cmd: './a', sha256: 'abc' } } },
          },
          { ...GOOD, id: 'bad-version', version: 'latest' },
          GOOD,
        ],
      }),
    );
    expect(idx.agents.map((a) => a.id)).toEqual(['codex-acp']);
    expect(idx.problems).toHaveLength(5);
    expect(idx.problems.join('\n')).toMatch(/"Bad_Id" skipped: .*id must be lowercase/);
    expect(idx.problems.join('\n')).toMatch(/"no-dist" skipped: .*at least one distribution/);
    expect(idx.problems.join('\n')).toMatch(/"bad-sha" skipped: .*sha256/);
    expect(idx.problems.join('\n')).toMatch(/"codex-acp" skipped: duplicate id/);
  });

  it('an unusable document is a clear error', () => {
    expect(() => parseIndex('{')).toThrow(/not JSON/);
    expect(() => parseIndex('{"agents": 3}')).toThrow(/no "version" and "agents"/);
  });

  it('caches with the ETag, revalidates with If-None-Match, and falls back to the cache (with its age) when offline', async () => {
    const home = tempDir();
    serveIndex(lb, [GOOD], '"v1"');
    const url = `${lb.url}/registry.json`;
    let t = 1_000_000;
    const now = () => t;
    const first = await fetchIndex({ home, url, now });
    expect(first.from).toBe('network');
    expect(first.index.agents[0]!.id).toBe('codex-acp');

    t += 60_000;
    const second = await fetchIndex({ home, url, now });
    expect(second.from).toBe('not-modified');
    expect(lb.requests.at(-1)).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });

    t += 3 * 3_600_000;
    const offline = await fetchIndex({ home, url, now, offline: true });
    expect(offline).toMatchObject({ from: 'cache', ageMs: 3 * 3_600_000, note: 'offline' });

    // The server is gone: the cache answers, saying why.
    lb.routes.delete('/registry.json');
    const gone = await fetchIndex({ home, url, now });
    expect(gone.from).toBe('cache');
    expect(gone.note).toBe('HTTP 404');
    expect(gone.index.agents).toHaveLength(1);
  });

  it('a broken answer never replaces a good cache; with no cache it is an error', async () => {
    const home = tempDir();
    const url = `${lb.url}/registry.json`;
    serveIndex(lb, [GOOD]);
    await fetchIndex({ home, url });
    lb.routes.set('/registry.json', { body: Buffer.from('not json') });
    const r = await fetchIndex({ home, url });
    expect(r.from).toBe('cache');
    expect(r.index.agents).toHaveLength(1);
    const empty = tempDir();
    await expect(fetchIndex({ home: empty, url })).rejects.toMatchObject({ code: 'registry_invalid' });
  });

  it('unreachable with no cache: registry_unreachable naming the URL', async () => {
    const err = await fetchIndex({ home: tempDir(), url: 'http://127.0.0.1:9/registry.json' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({ code: 'registry_unreachable' });
    expect((err as Error).message).toContain('http://127.0.0.1:9/registry.json');
  });
});
