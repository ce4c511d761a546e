import { describe, it, expect } from 'vitest';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/cli.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { CliIo } from '../../src/cli/io.js';
import { tempDir } from './helpers.js';

/** Dispatch, usage errors, help and stubs, in-process (no agent is started by any of these). */
function io(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]) as unknown as CliIo['stdin'],
    env: {},
    out: () => out,
    err: () => err,
  };
}

async function cli(args: string[]) {
  const i = io();
  const code = await main(args, i);
  return { code, stdout: i.out(), stderr: i.err() };
}

describe('talaria dispatch', () => {
  it('bad usage: exit 2 and exactly one line on stderr, nothing on stdout', async () => {
    const missing = tempDir('missing') + '/nope';
    const cases: [string[], RegExp][] = [
      [['run'], /missing PROMPT/],
      [['run', '--json', '--ndjson', 'x'], /either --json or --ndjson/],
      [['run', '--bogus', 'x'], /unknown option '--bogus'/],
      [['run', '--cwd'], /--cwd' needs a value/],
      [['run', '--approve', 'maybe', 'x'], /--approve must be one of ask, edits, all, none/],
      [['run', '--cwd', missing, 'x'], /is not a directory/],
      [['run', '--setup-timeout=-1', 'x'], /--setup-timeout must be a positive number/],
      [['run', '--setup-timeout', '-1', 'x'], /argument is ambiguous/],
      [['run', '--agent', 'demo', '--agent-cmd', 'x', 'y'], /pass one of --agent, --agent-cmd and --agent-url/],
      [['run', '--agent-cmd', '"unterminated', 'x'], /unterminated double quote/],
      [['chat', 'hello'], /unexpected argument 'hello'/],
      [['models', 'x'], /unexpected argument/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['replay'], /missing FILE/],
      [['replay', 'a', 'b'], /exactly one FILE/],
      [['replay', '/nonexistent/file.ndjson'], /cannot read/],
      [['sessions'], /missing COMMAND/],
      [['sessions', 'frob'], /unknown command 'frob'/],
      [['sessions', 'show'], /missing ID/],
      [['sessions', 'list', 'x'], /unexpected argument 'x'/],
      [['sessions', 'export', 'x', '--format', 'pdf'], /--format must be one of md, json, fixture/],
      [['doctor', '--timeout', 'soon'], /--timeout must be a positive number/],
      [['agents', 'x'], /unexpected argument 'x'/],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(EXIT.USAGE);
      expect(r.stderr, args.join(' ')).toMatch(msg);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });

  it('help for every command; run --help documents every exit code', async () => {
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    for (const c of ['chat', 'run', 'replay', 'models', 'mode', 'doctor']) expect(main.stdout).toContain(c);
    const run = await cli(['run', '--help']);
    for (const [code, word] of [
      [0, 'end_turn'],
      [2, 'bad usage'],
      [3, 'refused'],
      [4, 'limit'],
      [5, 'crashed'],
      [6, 'not ready'],
      [130, 'cancelled'],
    ] as const) {
      expect(run.stdout).toMatch(new RegExp(`\\n  ${code} +.*${word}`));
    }
    for (const c of ['chat', 'replay', 'models', 'mode', 'doctor', 'agents', 'sessions']) {
      const r = await cli([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toContain(`talaria ${c}`);
    }
    expect((await cli(['--version'])).stdout).toMatch(/^talaria \d+\.\d+\.\d+/);
  });

  it('acp is a command now (not a stub): its help, exit 0', async () => {
    const acp = await cli(['acp', '--help']);
    expect(acp.code).toBe(EXIT.OK);
    expect(acp.stdout).toContain('talaria acp --print-config zed|jetbrains');
  });
});
