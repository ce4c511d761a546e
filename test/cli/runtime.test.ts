import { describe, it, expect } from 'vitest';
import { resolveAgent, RuntimeError, DEMO_BANNER, DEMO_NOTE } from '../../src/cli/runtime.js';
import { UsageError } from '../../src/cli/args.js';
import { colorEnabled } from '../../src/cli/io.js';
import { exitCodeFor, EXIT } from '../../src/cli/exit-codes.js';
import { permissionConfig, parseAnswer, DENY_ALL } from '../../src/cli/approve.js';
import { evaluate } from '../../src/permission/policy.js';

describe('resolveAgent (the direct runtime)', () => {
  it('default: the demo agent through this Node, with the banner and only TALARIA_DEMO_* passed on', () => {
    const a = resolveAgent({}, { TALARIA_DEMO_HOME: '/x', OPENAI_API_KEY: 'secret', PATH: '/bin' });
    expect(a).toMatchObject({ command: process.execPath, isDemo: true, banner: DEMO_BANNER, inherit: ['TALARIA_DEMO_HOME'] });
    expect(a.args.at(-1)).toMatch(/src\/demo\/main\.ts$/);
    expect(resolveAgent({ agent: 'demo' }).banner).toBe(DEMO_NOTE);
  });

  it('--agent-cmd is split like a shell and gets no extra environment', () => {
    expect(resolveAgent({ agentCmd: `"/opt/my agent" acp --profile 'work x'` })).toMatchObject({
      command: '/opt/my agent',
      args: ['acp', '--profile', 'work x'],
      isDemo: false,
      inherit: [],
    });
    expect(() => resolveAgent({ agentCmd: '   ' })).toThrow(UsageError);
    expect(() => resolveAgent({ agent: 'demo', agentCmd: 'x' })).toThrow(UsageError);
  });

  it('an agent id this build does not know is a not-ready error naming the way out', () => {
    let err: unknown;
    try {
      resolveAgent({ agent: 'hermes' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RuntimeError);
    expect(err).toMatchObject({ code: 'unknown_agent', message: expect.stringContaining('--agent-cmd') });
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
    expect(['end_turn', 'refusal', 'max_tokens', 'max_turn_requests', 'cancelled', 'error', 'something_new'].map(exitCodeFor)).toEqual([
      EXIT.OK, EXIT.REFUSAL, EXIT.LIMIT, EXIT.LIMIT, EXIT.CANCELLED, EXIT.AGENT_ERROR, EXIT.OK,
    ]);
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
