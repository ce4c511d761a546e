/**
 * "Continue here" on a fleet member (docs/fleet.md §2, §4) of a session whose folder this host
 * lacks: `POST /api/sessions/:id/branches` answers 409 naming the missing path, and this host
 * makes no workspace for it. A real server on a store told its host (as `serve` joining a fleet
 * does); the other host's rows are written through a second repository on the same database.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServerError } from '../../src/server/client/index.js';
import { rawDb } from '../../src/store/sqlite.js';
import { createWorkspacesRepo } from '../../src/store/workspaces.js';
import { serve } from './helpers.js';

const HERE = 'h_aaaaaaaa-0000-4000-8000-000000000000';
const THERE = 'h_bbbbbbbb-0000-4000-8000-000000000000';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ServerError,
  );

describe('continue another host’s session whose folder is not on this host', () => {
  it('409 naming the path (its workspace, or its cwd below one this host has); no workspace made here', async () => {
    const s = await serve();
    const store = s.harness.store;
    store.workspaces.useHost(HERE);
    const other = createWorkspacesRepo(rawDb(store));
    other.useHost(THERE);
    const away = other.ensure({ path: '/nowhere/talaria-test/proj' });
    const gone = store.sessions.create({ provider: 'demo', workspaceId: away.id, cwd: away.path });
    const before = (await s.client.api.workspaces({})).workspaces.map((w) => w.path);

    const e = await failure(s.client.api.createBranch({ params: { id: gone.id }, body: { provider: 'demo' } }));
    expect(e).toBeInstanceOf(ServerError);
    expect(e).toMatchObject({
      status: 409,
      code: 'conflict',
      message: '/nowhere/talaria-test/proj does not exist on this host',
    });
    expect(e!.fix).toMatch(/on this host/);
    expect((await s.client.api.workspaces({})).workspaces.map((w) => w.path)).toEqual(before);

    // Its workspace path is here (the same folder on both hosts), the cwd below it is not.
    const shared = other.ensure({ path: s.p.userHome });
    const below = join(s.p.userHome, 'not-here');
    const deep = store.sessions.create({ provider: 'demo', workspaceId: shared.id, cwd: below });
    const d = await failure(s.client.api.createBranch({ params: { id: deep.id }, body: { provider: 'demo' } }));
    expect(d).toMatchObject({ status: 409, message: `${below} does not exist on this host` });
  });
});
