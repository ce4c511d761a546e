/**
 * The harness records Talaria's own permission decisions about the effects it performs for an
 * agent (fs/*, terminal/create) in the store's audit log, next to the agent's requests.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { customProvider } from '../../src/providers/custom.js';
import { createRegistry } from '../../src/providers/registry.js';
import { makeHarness, place } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

vi.setConfig({ testTimeout: 60_000 });

const AGENT = fileURLToPath(new URL('../fakes/effects-agent.ts', import.meta.url));

describe('effects in the audit log', () => {
  it('an agent that writes .envrc, reads .env and runs rm -rf without asking: three asked, refused, stored', async () => {
    const p = place();
    writeFileSync(join(p.userHome, '.env'), 'API_KEY=very-secret\n');
    mkdirSync(join(p.userHome, 'victim'));
    const fx = customProvider({ name: 'effects', command: process.execPath, args: nodeArgs(AGENT) });
    const h = makeHarness(p, {
      registry: createRegistry({ extra: [fx] }),
      host: { terminateGraceMs: 500, permission: { mode: 'ask' } },
    });
    const s = await h.workspaces.open(p.userHome).newSession({ provider: fx.id });
    s.session.subscribe((e) => {
      if (e.type === 'permission.asked') s.session.answerPermission(e.requestKey, { choice: 'reject_once' }, 'test');
    });
    const steps = [
      `write ${join(p.userHome, '.envrc')} x`,
      `read ${join(p.userHome, '.env')}`,
      `run rm -rf ${join(p.userHome, 'victim')}`,
    ];
    expect((await s.prompt(steps.join('\n')).result).stopReason).toBe('end_turn');
    expect(existsSync(join(p.userHome, '.envrc'))).toBe(false);
    expect(existsSync(join(p.userHome, 'victim'))).toBe(true);
    const audit = h.store.permissions.listAudit(s.id);
    expect(
      audit.map((a) => [(a.subject as { effect?: string }).effect, a.decidedBy, a.optionKind, a.answeredBy]),
    ).toEqual([
      ['fs.write', 'user', 'reject_once', 'test'],
      ['fs.read', 'user', 'reject_once', 'test'],
      ['terminal.create', 'user', 'reject_once', 'test'],
    ]);
    await h.close();
  });
});
