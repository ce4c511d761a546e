import { describe, it, expect } from 'vitest';
import { sessionRows, sessionState } from '../../../src/cli/render/sessions.js';
import { readinessBlock, statusWord } from '../../../src/cli/render/readiness.js';
import { createStyle } from '../../../src/cli/render/style.js';
import type { Readiness } from '../../../src/providers/types.js';

const plain = createStyle(false);
const r = (o: Partial<Readiness>): Readiness => ({
  providerId: 'x',
  label: 'X',
  found: true,
  ready: false,
  gaps: [],
  warnings: [],
  ...o,
});

describe('doctor / agents / sessions rendering', () => {
  it('status words follow the first gap', () => {
    expect(statusWord(r({ ready: true }))).toBe('ready');
    expect(statusWord(r({ found: false, gaps: [{ code: 'not_installed', message: '', fix: '' }] }))).toBe(
      'not installed',
    );
    expect(statusWord(r({ found: false, gaps: [{ code: 'not_executable', message: '', fix: '' }] }))).toBe(
      'not executable',
    );
    expect(statusWord(r({ gaps: [{ code: 'unconfigured', message: '', fix: '' }] }))).toBe('needs setup');
    expect(statusWord(r({ gaps: [{ code: 'auth', message: '', fix: '' }] }))).toBe('needs setup');
    expect(statusWord(r({ gaps: [{ code: 'config', message: '', fix: '' }] }))).toBe('config problem');
    expect(statusWord(r({ gaps: [{ code: 'timeout', message: '', fix: '' }] }))).toBe('not ready');
  });

  it('a readiness block: every gap and warning with its fix, escape characters made visible (harmless)', () => {
    const lines = readinessBlock(
      r({
        version: '1.2',
        command: { command: '/bin/x', args: [], via: 'PATH' },
        gaps: [{ code: 'auth', message: 'no key\x1b[31m', fix: 'set X_KEY' }],
        warnings: [{ code: 'timeout', message: 'slow', fix: 'wait' }],
      }),
      plain,
      { chosen: true },
    );
    expect(lines).toEqual([
      '  ! x            X — needs setup · v1.2 · PATH: /bin/x  ← chosen',
      '      no key\u241b[31m',
      '      fix: set X_KEY',
      '      warning: slow',
      '      fix: wait',
    ]);
  });

  it('quirks: shown for an agent that can run, not for one that is not installed (issue 35)', () => {
    const quirks = { set: 'claude-acp', label: 'Claude Code ACP adapter', basis: 'provider', why: 'by id' } as const;
    const installed = readinessBlock(
      { ...r({ command: { command: '/bin/x', args: [], via: 'PATH' } }), quirks },
      plain,
    );
    expect(installed.some((l) => l.includes('quirks: Claude Code ACP adapter'))).toBe(true);
    const missing = readinessBlock(
      {
        ...r({ found: false, gaps: [{ code: 'not_installed', message: 'not installed', fix: 'npm i -g x' }] }),
        quirks,
      },
      plain,
    );
    expect(missing.some((l) => l.includes('quirks:'))).toBe(false);
  });

  it('session rows: where each session lives', () => {
    expect(sessionState({ id: 'a', provider: 'p', archived: true, stored: true })).toBe('archived');
    expect(sessionState({ id: 'a', provider: 'p', archived: false, stored: false, atAgent: true })).toBe('agent only');
    expect(sessionState({ id: 'a', provider: 'p', archived: false, stored: true, atAgent: false })).toBe('store only');
    expect(sessionState({ id: 'a', provider: 'p', archived: false, stored: true })).toBe('');
    expect(sessionRows([], plain)).toEqual(['No sessions.']);
    const rows = sessionRows(
      [
        {
          id: 'abc',
          provider: 'hermes',
          profile: 'work',
          archived: false,
          stored: true,
          updatedAt: Date.UTC(2026, 0, 2, 3, 4),
          title: 'Hi',
        },
      ],
      plain,
    );
    expect(rows).toEqual([
      'ID   AGENT        UPDATED (UTC)     STATE  TITLE',
      'abc  hermes:work  2026-01-02 03:04         Hi',
    ]);
  });
});
