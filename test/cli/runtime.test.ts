import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { createHarness } from '../../src/harness/index.js';
import { agentLabel, cliHarnessOptions, DEMO_BANNER, DEMO_NOTE } from '../../src/cli/runtime.js';
import { colorEnabled } from '../../src/cli/io.js';
import { exitCodeFor, EXIT } from '../../src/cli/exit-codes.js';
import { permissionConfig, parseAnswer, DENY_ALL } from '../../src/cli/approve.js';
import { evaluate } from '../../src/permission/policy.js';

describe('the harness runtime helpers', () => {
  it('agent labels come from initialize (title, else name, with the version), else the provider label', () => {
    expect(agentLabel({ name: 'hermes-agent', version: '0.18.2' }, 'Hermes Agent')).toBe('hermes-agent 0.18.2');
    expect(agentLabel({ name: 'x', title: 'The X', version: '1' }, 'X')).toBe('The X 1');
    expect(agentLabel(undefined, 'Demo agent')).toBe('Demo agent');
  });

  it("the CLI's provider env is its own environment, HOME included", () => {
    const o = cliHarnessOptions({ PATH: '/only/here', HOME: '/tmp/someone', TALARIA_HOME: '/tmp/th' });
    expect(o.env).toMatchObject({ homeDir: '/tmp/someone', env: { PATH: '/only/here', TALARIA_HOME: '/tmp/th' } });
  });

  it('only long-lived faces warm agents: a one-shot command gets a harness without the warm pool', async () => {
    const home = mkdtempSync(join(tmpdir(), 'talaria-warm-'));
    const env = { PATH: process.env.PATH ?? '', HOME: home, TALARIA_HOME: join(home, 't') };
    const oneShot = createHarness(cliHarnessOptions(env));
    const longLived = createHarness(cliHarnessOptions(env, { warm: true }));
    try {
      expect(oneShot.warm.enabled).toBe(false);
      expect(longLived.warm.enabled).toBe(true);
    } finally {
      await oneShot.close();
      await longLived.close();
    }
  });

  it('the demo banners say what is going on', () => {
    expect(DEMO_BANNER).toContain('install Hermes or pass --agent-cmd');
    expect(DEMO_NOTE).toContain('demo agent');
  });
});

describe('terminal and policy helpers', () => {
  it('colour: NO_COLOR wins, FORCE_COLOR forces, otherwise only on a TTY that is not dumb', () => {
    expect(colorEnabled({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ write: () => true, isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ write: () => true, isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled({ write: () => true }, {})).toBe(false);
    expect(colorEnabled({ write: () => true }, { FORCE_COLOR: '1' })).toBe(true);
  });

  it('exit codes per stop reason', () => {
    expect(
      [
        'end_turn',
        'refusal',
        'max_tokens',
        'max_turn_requests',
        'cancelled',
        'permission_denied',
        'error',
        'something_new',
      ].map(exitCodeFor),
    ).toEqual([EXIT.OK, EXIT.REFUSAL, EXIT.LIMIT, EXIT.LIMIT, EXIT.CANCELLED, EXIT.DENIED, EXIT.AGENT_ERROR, EXIT.OK]);
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });

  it('--approve modes map onto the policy; none denies even what always asks', () => {
    expect(permissionConfig('ask')).toEqual({ mode: 'ask', rules: [] });
    expect(permissionConfig('edits').mode).toBe('accept-edits');
    expect(permissionConfig('all').mode).toBe('auto');
    const subject = { sessionId: 's', toolCallId: 't', toolKind: 'edit', paths: ['/w/.env'], roots: ['/w'] };
    expect(evaluate(subject, permissionConfig('all')).decision).toBe('ask'); // sensitive path
    expect(evaluate(subject, permissionConfig('none'))).toMatchObject({ decision: 'deny', rule: DENY_ALL });
  });

  it('permission answers', () => {
    expect(parseAnswer(' Y ')).toEqual({ choice: 'allow_once' });
    expect(parseAnswer('always')).toEqual({ choice: 'allow_always' });
    expect(parseAnswer('n')).toEqual({ choice: 'reject_once' });
    expect(parseAnswer('maybe')).toBeUndefined();
  });
});
