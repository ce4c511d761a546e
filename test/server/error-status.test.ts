/** One error model: every library code has its own HTTP answer; none falls back to a default. */
import { hostname } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { TALARIA_ERROR_CODES, type TalariaErrorCode } from '../../src/harness/index.js';
import { TalariaError } from '../../src/protocol/errors.js';
import { toHttpError } from '../../src/server/app.js';
import { ERROR_CODES, ERROR_STATUS } from '../../src/server/contract/index.js';
import { StoreError } from '../../src/store/index.js';
import { raw, serve } from './helpers.js';

// Written out by hand, apart from the table it checks: a code added to the library without an
// answer fails here as well as in the typecheck.
const EXPECTED: Record<TalariaErrorCode, [code: string, status: number]> = {
  session_not_found: ['not_found', 404],
  not_found: ['not_found', 404],
  invalid_argument: ['invalid_argument', 400],
  outside_roots: ['invalid_argument', 400],
  invalid_state: ['conflict', 409],
  unsupported: ['conflict', 409],
  session_closed: ['conflict', 409],
  session_failed: ['conflict', 409],
  session_busy: ['busy', 409],
  session_owned_elsewhere: ['busy', 409],
  busy: ['busy', 409],
  spawn_failed: ['not_ready', 503],
  auth_required: ['not_ready', 503],
  not_initialized: ['not_ready', 503],
  agent_error: ['agent_error', 502],
  agent_crashed: ['agent_error', 502],
  connection_closed: ['agent_error', 502],
  timeout: ['timeout', 504],
  permission_timeout: ['timeout', 504],
  workspace_missing: ['conflict', 409],
  context_overflow: ['context_overflow', 422],
  aborted: ['unavailable', 503],
  closed: ['unavailable', 503],
  recording_failed: ['store', 503],
  open_failed: ['store', 503],
  migration_failed: ['store', 503],
  schema_too_new: ['store', 503],
  store_corrupt: ['store', 503],
  store_read_only: ['store', 503],
  store_permission: ['store', 503],
  store_busy: ['store', 503],
  store_full: ['store', 503],
  store_io: ['store', 503],
};

const spyLogger = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe('library error → HTTP answer', () => {
  it('every TalariaErrorCode has its own answer: a public code with its status, never the bug answer', () => {
    expect([...TALARIA_ERROR_CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const code of TALARIA_ERROR_CODES) {
      const logger = spyLogger();
      const e = toHttpError(new TalariaError(code as never, `it was ${code}`), logger);
      expect([e.code, e.status], code).toEqual(EXPECTED[code]);
      expect(ERROR_CODES).toContain(e.code);
      expect(e.status).toBe(ERROR_STATUS[e.code]);
      expect(e.message).toBe(`it was ${code}`);
      expect(logger.error, code).not.toHaveBeenCalled();
    }
  });

  it("the error's own fix (the store's) wins over the table's; the table's is given when it has none", () => {
    const full = toHttpError(
      new StoreError('store_full', 'The disk is full. Free some space.', undefined, {
        fix: 'Free some space, then try again.',
      }),
      spyLogger(),
    );
    expect(full.body()).toEqual({
      code: 'store',
      message: 'The disk is full. Free some space.',
      fix: 'Free some space, then try again.',
    });
    expect(full.status).toBe(503);
    const busy = toHttpError(new TalariaError('session_busy', 'open elsewhere'), spyLogger());
    expect(busy.body()).toMatchObject({ code: 'busy', fix: expect.stringMatching(/try again/) });
    expect(toHttpError(new TalariaError('spawn_failed', 'no agent'), spyLogger()).fix).toBe(
      'See GET /api/readiness for what the agent needs.',
    );
  });

  it('a code of no library layer (a face that forgot to map its own) is a bug: 500, logged', () => {
    const logger = spyLogger();
    const e = toHttpError(new TalariaError<string>('ref_unknown', 'a caps code'), logger);
    expect([e.code, e.status]).toEqual(['internal', 500]);
    expect(logger.error).toHaveBeenCalledWith(
      'server: unexpected error',
      expect.objectContaining({ code: 'ref_unknown' }),
    );
  });
});

describe('a route answers with the mapped status', () => {
  it('opening a session another Talaria process holds: 409 busy with the fix, not 502', async () => {
    const { p, server, harness } = await serve();
    const s = await harness.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await s.close();
    harness.store.leases.acquire(s.id, { owner: 'another-talaria', pid: process.pid, host: hostname() }, () => true);
    const r = await raw(server, `/api/sessions/${s.id}/open`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      code: 'busy',
      message: expect.stringContaining(`session ${s.id} is open in another Talaria process ${process.pid}`),
    });
    expect(r.json.fix).toMatch(/try again/);
  });
});
