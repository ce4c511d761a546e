/**
 * Registry agents added, updated and removed over HTTP on a real server (issue 13), against a
 * loopback registry holding locally built archives whose command starts the echo agent (real ACP
 * over a pipe): the running server's agents follow at once (no restart), a turn answers with the
 * installed copy, and every fault is a clear {code, message, fix} that installs nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REGISTRY_ROUTES } from '../../src/server/contract/index.js';
import { agentTarGz, serveIndex, sha256, startLoopback, type Loopback } from '../providers/registry-acp/helpers.js';
import { isEvent, Probe, raw, serve, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: 180_000 });

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const binEntry = (id: string, version: string, archive: string, sum?: string) => ({
  id,
  name: `Agent ${id}`,
  version,
  description: 'Archive agent',
  distribution: { binary: { 'linux-x86_64': { archive, cmd: './dist/agent', ...(sum ? { sha256: sum } : {}) } } },
});

let lb: Loopback;
let tgz: Buffer;
beforeAll(async () => {
  lb = await startLoopback();
  tgz = await agentTarGz(tempDir('reg-archive'));
  lb.routes.set('/dl/a.tar.gz', { body: tgz });
});
afterAll(async () => {
  await lb.close();
});

async function server() {
  const s = await serve({ vars: { TALARIA_REGISTRY_URL: `${lb.url}/registry.json` } });
  const ids = async () => (await s.client.call('providers')).providers.map((p) => p.id);
  return { s, ids, agents: join(s.p.home, 'agents') };
}

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('registry agents over HTTP', () => {
  it('add → the running server lists it and a turn answers; update → the new version; remove → gone, and the open session on it is reported', async () => {
    serveIndex(lb, [binEntry('bin-agent', '2.0.0', `${lb.url}/dl/a.tar.gz`, sha256(tgz))], '"r1"');
    const { s, ids, agents } = await server();
    expect(await ids()).not.toContain('bin-agent');

    const add = await raw(s.server, '/api/registry/agents', post({ spec: 'bin-agent' }));
    expect(add.status, add.text).toBe(200);
    expect(REGISTRY_ROUTES.registryAdd.response.safeParse(add.json).success).toBe(true);
    expect(add.json).toMatchObject({
      installed: { id: 'bin-agent', version: '2.0.0', kind: 'binary' },
      provider: { id: 'bin-agent', ready: true, source: 'registry' },
    });
    expect(await ids()).toContain('bin-agent');
    expect(((await raw(s.server, '/api/registry')).json as { agents: unknown[] }).agents[0]).toMatchObject({
      id: 'bin-agent',
      installed: '2.0.0',
    });

    const { workspace } = await s.client.call('openWorkspace', { body: { path: s.p.userHome } });
    const { snapshot } = await s.client.call('createSession', {
      params: { id: workspace.id },
      body: { provider: 'bin-agent' },
    });
    const probe = new Probe(s.server);
    await probe.wait((m) => m.type === 'welcome');
    probe.send({ type: 'subscribe', sessionId: snapshot.session.id, since: snapshot.seq });
    await s.client.call('prompt', {
      params: { id: snapshot.session.id },
      body: { text: 'hello from the web registry' },
    });
    await probe.wait(isEvent(snapshot.session.id, 'turn.ended'));
    expect(
      JSON.stringify((await s.client.call('snapshot', { params: { id: snapshot.session.id } })).snapshot.thread),
    ).toContain('hello from the web registry');

    // Up to date: nothing moves.
    expect((await raw(s.server, '/api/registry/agents/bin-agent/update', { method: 'POST' })).json).toMatchObject({
      status: 'up-to-date',
      from: '2.0.0',
    });
    serveIndex(lb, [binEntry('bin-agent', '2.1.0', `${lb.url}/dl/a.tar.gz`, sha256(tgz))], '"r2"');
    const up = await raw(s.server, '/api/registry/agents/bin-agent/update', { method: 'POST' });
    expect(up.status, up.text).toBe(200);
    expect(up.json).toMatchObject({
      id: 'bin-agent',
      from: '2.0.0',
      status: 'updated',
      to: '2.1.0',
      provider: { id: 'bin-agent', ready: true },
    });
    expect(readdirSync(agents)).toEqual(['bin-agent@2.1.0']);
    expect(await ids()).toContain('bin-agent');
    expect(((await raw(s.server, '/api/registry')).json as { agents: unknown[] }).agents[0]).toMatchObject({
      id: 'bin-agent',
      version: '2.1.0',
      installed: '2.1.0',
    });

    const rm = await raw(s.server, '/api/registry/agents/bin-agent', { method: 'DELETE' });
    expect(rm.status, rm.text).toBe(200);
    // The session opened above still runs on the removed copy: the answer says so.
    expect(rm.json).toEqual({ id: 'bin-agent', removed: ['2.1.0'], openSessions: 1 });
    expect(await ids()).not.toContain('bin-agent');
    const again = await raw(s.server, `/api/workspaces/${workspace.id}/sessions`, post({ provider: 'bin-agent' }));
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ code: 'invalid_argument', message: 'no agent "bin-agent"' });
    const gone = await raw(s.server, '/api/registry/agents/bin-agent', { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ code: 'not_found', fix: expect.any(String) });
  });

  it('a sha256 mismatch installs nothing (502 with a fix); an unknown id is 404; uvx without uv installs with the gap and its fix', async () => {
    serveIndex(
      lb,
      [
        binEntry('bad-sum', '1.0.0', `${lb.url}/dl/a.tar.gz`, 'f'.repeat(64)),
        {
          id: 'py-agent',
          name: 'Py Agent',
          version: '0.13.0',
          description: 'uvx only',
          distribution: { uvx: { package: 'py-agent==0.13.0' } },
        },
      ],
      '"r3"',
    );
    const { s, ids, agents } = await server();
    const bad = await raw(s.server, '/api/registry/agents', post({ spec: 'bad-sum' }));
    expect(bad.status).toBe(502);
    expect(bad.json).toMatchObject({
      code: 'agent_error',
      data: { registryCode: 'checksum_mismatch' },
      fix: expect.stringMatching(/not what the registry published/),
    });
    expect(bad.json.message).toMatch(/does not match the registry's sha256.*nothing was installed/);
    expect(existsSync(agents) ? readdirSync(agents) : []).toEqual([]);
    expect(await ids()).not.toContain('bad-sum');

    const unknown = await raw(s.server, '/api/registry/agents', post({ spec: 'nope' }));
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('no agent "nope" in the registry'),
      fix: expect.any(String),
    });
    expect((await raw(s.server, '/api/registry/agents', post({ spec: '' }))).status).toBe(400);

    const py = await raw(s.server, '/api/registry/agents', post({ spec: 'py-agent' }));
    expect(py.status, py.text).toBe(200);
    const provider = (py.json as { provider: { ready: boolean; gaps: { fix?: string }[] } }).provider;
    expect(provider.ready).toBe(false);
    expect(provider.gaps[0]!.fix).toMatch(/Install uv/);
    expect(await ids()).toContain('py-agent');
  });

  it('network down: the cached index is used and its age shown; a second add while one runs is 409 and installs once', async () => {
    // The archive is held until released, so the first install is still running when the second click comes.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let downloads = 0;
    const slow = createServer((_req, res) => {
      downloads++;
      void held.then(() => res.writeHead(200).end(tgz));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/a.tar.gz`;
    serveIndex(lb, [binEntry('slow-agent', '1.0.0', slowUrl, sha256(tgz))], '"r4"');
    const { s, ids } = await server();
    expect((await raw(s.server, '/api/registry')).json.from).toBe('network');

    // The registry goes away: the index comes from the cache.
    lb.routes.delete('/registry.json');
    const first = raw(s.server, '/api/registry/agents', post({ spec: 'slow-agent' }));
    await vi.waitFor(() => expect(downloads).toBe(1), { timeout: 60_000, interval: 20 });
    const second = await raw(s.server, '/api/registry/agents', post({ spec: 'slow-agent@1.0.0' }));
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('slow-agent is already being changed'),
      fix: 'Wait for it to finish.',
    });
    release();
    const done = await first;
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({
      installed: { id: 'slow-agent' },
      index: { from: 'cache', note: expect.stringMatching(/(just now|min ago)/) },
    });
    expect(downloads).toBe(1);
    expect(await ids()).toContain('slow-agent');
    await new Promise<void>((r) => slow.close(() => r()));
  });
});
