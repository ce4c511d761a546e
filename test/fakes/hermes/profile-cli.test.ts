/**
 * The emulator's `hermes profile create|list` and `-p` against what real Hermes 0.18.2 printed
 * (test/fixtures/hermes-0.18.2-real/profile-*.txt, p-missing-profile.txt; captured with
 * HERMES_HOME=/tmp/hh-prof, which is replaced by the test's own home).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONFIG, useEnv } from './test-env.js';

const BIN = join(import.meta.dirname, 'bin', 'hermes');
const FIX = join(import.meta.dirname, '..', '..', 'fixtures', 'hermes-0.18.2-real');
const REAL_HOME = '/tmp/hh-prof';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fixture file: `# exit N`, then stdout and stderr after their markers. */
function real(file: string, home: string): Run {
  const text = readFileSync(join(FIX, file), 'utf8').split(REAL_HOME).join(home);
  const code = Number(/^# exit (\d+)$/m.exec(text)![1]);
  const [, after] = text.split('# --- stdout\n');
  const [stdout, stderr] = after!.split('# --- stderr\n');
  return { code, stdout: stdout!, stderr: stderr! };
}

async function emu(args: string[], env: Record<string, string>): Promise<Run> {
  try {
    const r = await promisify(execFile)(BIN, args, { env: { PATH: process.env.PATH!, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('emulator `hermes profile` = real 0.18.2', () => {
  const t = useEnv('hermes-prof-');

  it('create --clone --no-alias, its refusals and -p of a missing profile print what Hermes prints', async () => {
    const home = t.makeHome(CONFIG);
    const user = t.makeWs();
    const env = { HERMES_HOME: home, HOME: user };
    const cases: [string, string[]][] = [
      [
        'profile-create-clone.txt',
        ['profile', 'create', 'ws-probe', '--clone', '--no-alias', '--description', 'Talaria workspace probe'],
      ],
      ['profile-create-exists.txt', ['profile', 'create', 'ws-probe', '--clone', '--no-alias']],
      ['profile-create-invalid.txt', ['profile', 'create', 'Bad/Name', '--clone', '--no-alias']],
      ['profile-create-reserved.txt', ['profile', 'create', 'test', '--clone', '--no-alias']],
      ['profile-create-default.txt', ['profile', 'create', 'default', '--clone']],
      ['p-missing-profile.txt', ['-p', 'nosuch', 'acp', '--check']],
    ];
    for (const [file, args] of cases) {
      const want = real(file, home);
      const got = await emu(args, env);
      expect({ file, ...got }).toEqual({ file, ...want });
    }
    // What --clone made: the profile's own copies, description last.
    const p = join(home, 'profiles', 'ws-probe');
    expect(readFileSync(join(p, 'config.yaml'), 'utf8')).toBe(CONFIG);
    expect(readFileSync(join(p, 'profile.yaml'), 'utf8')).toMatch(
      /^description: "?Talaria workspace probe"?\ndescription_auto: false\n$/,
    );
  });

  it('profile list: the fixed-width table, one row per profile, ◆ on the active one', async () => {
    const home = t.makeHome(CONFIG);
    const want = real('profile-list.txt', home).stdout.split('\n');
    const names = want.map((l) => /^( ◆|  )(\S+)/.exec(l)?.[2]).filter((n): n is string => !!n && n !== 'default');
    for (const n of names) {
      mkdirSync(join(home, 'profiles', n), { recursive: true });
      const model = want
        .find((l) => l.startsWith(`  ${n} `))!
        .trim()
        .split(/\s+/)[1]!;
      writeFileSync(join(home, 'profiles', n, 'config.yaml'), `model:\n  default: ${model}\n  provider: custom\n`);
    }
    const got = await emu(['profile', 'list'], { HERMES_HOME: home, HOME: t.makeWs() });
    expect(got.stdout.split('\n')).toEqual(want);
  });

  it('-p with a name that is no profile name is left to argparse (exit 2), as in 0.18.2', async () => {
    const got = await emu(['-p', 'BadName', 'acp', '--check'], { HERMES_HOME: t.makeHome(CONFIG), HOME: t.makeWs() });
    expect(got.code).toBe(2);
    expect(got.stderr).toMatch(/invalid choice: 'BadName'/);
  });
});
