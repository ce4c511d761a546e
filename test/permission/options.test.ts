import { describe, it, expect } from 'vitest';
import { chooseOption, pickOption, type PermissionIntent } from '../../src/permission/options.js';
import type { PermissionOption } from '../../src/permission/types.js';

const o = (optionId: string, kind: string): PermissionOption => ({ optionId, name: optionId, kind });

/** Option sets as real agents offer them (ids differ everywhere). */
const schemes: Record<string, PermissionOption[]> = {
  claude: [o('allow_always', 'allow_always'), o('allow', 'allow_once'), o('reject', 'reject_once')],
  codex: [o('approved', 'allow_once'), o('abort', 'reject_once')],
  opencode: [o('once', 'allow_once'), o('always', 'allow_always'), o('reject', 'reject_once')],
  gemini: [o('proceed_always', 'allow_always'), o('proceed_once', 'allow_once'), o('cancel', 'reject_once')],
  qwen: [
    o('proceed_once', 'allow_once'),
    o('proceed_once_modify', 'allow_once'),
    o('proceed_always', 'allow_always'),
    o('cancel', 'reject_once'),
  ],
  hermesCommand: [
    o('allow_once', 'allow_once'),
    o('allow_session', 'allow_always'),
    o('allow_always', 'allow_always'),
    o('deny', 'reject_once'),
    o('deny_always', 'reject_always'),
  ],
  hermesEdit: [o('allow_once', 'allow_once'), o('deny', 'reject_once')],
  onlyAlways: [o('yes_forever', 'allow_always'), o('no_forever', 'reject_always')],
  allowOnly: [o('ok', 'allow_once')],
  rejectOnly: [o('no', 'reject_once')],
  unknownKinds: [o('maybe', 'something_else'), o('x', 'ALLOW_ONCE')],
  empty: [],
};

const expected: Record<string, Record<PermissionIntent, string | undefined>> = {
  claude: { allow_once: 'allow', allow_always: 'allow_always', reject_once: 'reject', reject_always: 'reject' },
  codex: { allow_once: 'approved', allow_always: 'approved', reject_once: 'abort', reject_always: 'abort' },
  opencode: { allow_once: 'once', allow_always: 'always', reject_once: 'reject', reject_always: 'reject' },
  gemini: {
    allow_once: 'proceed_once',
    allow_always: 'proceed_always',
    reject_once: 'cancel',
    reject_always: 'cancel',
  },
  qwen: { allow_once: 'proceed_once', allow_always: 'proceed_always', reject_once: 'cancel', reject_always: 'cancel' },
  hermesCommand: {
    allow_once: 'allow_once',
    allow_always: 'allow_session',
    reject_once: 'deny',
    reject_always: 'deny_always',
  },
  hermesEdit: { allow_once: 'allow_once', allow_always: 'allow_once', reject_once: 'deny', reject_always: 'deny' },
  onlyAlways: {
    allow_once: 'yes_forever',
    allow_always: 'yes_forever',
    reject_once: 'no_forever',
    reject_always: 'no_forever',
  },
  allowOnly: { allow_once: 'ok', allow_always: 'ok', reject_once: undefined, reject_always: undefined },
  rejectOnly: { allow_once: undefined, allow_always: undefined, reject_once: 'no', reject_always: 'no' },
  unknownKinds: { allow_once: undefined, allow_always: undefined, reject_once: undefined, reject_always: undefined },
  empty: { allow_once: undefined, allow_always: undefined, reject_once: undefined, reject_always: undefined },
};

const intents: PermissionIntent[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];
const rows = Object.keys(schemes).flatMap((scheme) =>
  intents.map((intent) => [scheme, intent, expected[scheme]![intent]] as const),
);

describe('chooseOption', () => {
  it.each(rows)('%s / %s → %s', (scheme, intent, id) => {
    const options = schemes[scheme]!;
    const got = chooseOption(options, intent);
    expect(got).toBe(id);
    if (got !== undefined) {
      // Always an offered id, and never across the allow/reject line.
      const chosen = options.find((x) => x.optionId === got)!;
      expect(chosen).toBeDefined();
      expect(chosen.kind.split('_')[0]).toBe(intent.split('_')[0]);
    }
  });

  it('chooses by kind even when ids look like other kinds', () => {
    const tricky = [o('allow_once', 'reject_once'), o('reject_once', 'allow_once')];
    expect(chooseOption(tricky, 'allow_once')).toBe('reject_once');
    expect(chooseOption(tricky, 'reject_once')).toBe('allow_once');
  });

  it('ignores malformed options and junk input', () => {
    const junk = [
      null,
      { kind: 'allow_once' },
      { optionId: 5, kind: 'allow_once' },
      o('good', 'allow_once'),
    ] as unknown as PermissionOption[];
    expect(chooseOption(junk, 'allow_once')).toBe('good');
    expect(chooseOption(undefined as unknown as PermissionOption[], 'allow_once')).toBeUndefined();
    expect(pickOption(schemes.claude!, 'bogus' as PermissionIntent)).toBeUndefined();
  });
});
