/**
 * The help is the CLI's table of contents (issue 35): every command the CLI dispatches is in
 * `talaria --help`, and every option `talaria run` takes is in `talaria run --help` (`caps` and
 * `--wire-log` were missing).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAIN_HELP, RUN_HELP } from '../../src/cli/help.js';
import { RUN_OPTIONS } from '../../src/cli/commands/run-options.js';

describe('help is complete', () => {
  it('every dispatched command is listed in talaria --help', () => {
    const cli = readFileSync(new URL('../../src/cli/cli.ts', import.meta.url), 'utf8');
    const commands = [...cli.matchAll(/case '([a-z-]+)':/g)].map((m) => m[1]!);
    expect(commands).toContain('caps');
    for (const c of commands) expect(MAIN_HELP, c).toMatch(new RegExp(`^  ${c} +\\S`, 'm'));
  });

  it('every option of talaria run is in talaria run --help', () => {
    for (const name of Object.keys(RUN_OPTIONS)) expect(RUN_HELP, name).toContain(`--${name}`);
  });
});
