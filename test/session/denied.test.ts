/**
 * "Cancelled" means somebody on our side cancelled. An agent that ends the turn `cancelled`
 * because a permission was refused (codex's reject option does) was denied, not cancelled.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { join } from 'node:path';
import type { AcpClient } from '../../src/session/client.js';
import { spawnFake, waitFor } from './helpers.js';

const clients: AcpClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function fake(o: Parameters<typeof spawnFake>[0] = {}) {
  const r = await spawnFake(o);
  clients.push(r.client);
  return r;
}

describe('a turn the agent ends after a denied permission', () => {
  it('a deny rule: the agent answers cancelled, the turn says permission_denied', async () => {
    const { client, cwd } = await fake({
      permission: { mode: 'ask', rules: [{ id: 'deny', decision: 'deny', source: 'user' }] },
    });
    const s = await client.newSession({ cwd });
    const r = await s.prompt(`perm-abort ${join(cwd, 'x.txt')}`).result;
    expect(r.agentStopReason).toBe('cancelled');
    expect(r.stopReason).toBe('permission_denied');
    expect(s.thread.entries.find((e) => e.kind === 'tool_call')).toMatchObject({ permission: { status: 'rejected' } });
  });

  it('a person answering no: permission_denied too', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm-abort ${join(cwd, 'x.txt')}`);
    const ev = await asked;
    if (ev.type !== 'permission.asked') throw new Error('unreachable');
    s.answerPermission(ev.requestKey, { choice: 'reject_once' });
    const ended = waitFor(s, (e) => e.type === 'turn.ended');
    expect((await t.result).stopReason).toBe('permission_denied');
    expect(await ended).toMatchObject({ stopReason: 'permission_denied' });
  });

  it('a cancel while the permission is pending stays cancelled', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm-abort ${join(cwd, 'x.txt')}`);
    await asked;
    void s.cancel();
    expect((await t.result).stopReason).toBe('cancelled');
  });

  it('a denial the agent answers with end_turn is just end_turn', async () => {
    const { client, cwd } = await fake({
      permission: { mode: 'ask', rules: [{ id: 'deny', decision: 'deny', source: 'user' }] },
    });
    const s = await client.newSession({ cwd });
    expect((await s.prompt(`perm ${join(cwd, 'x.txt')}`).result).stopReason).toBe('end_turn');
  });
});
