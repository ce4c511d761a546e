/**
 * `NAME=value` words in front of a command: plain ones are ignored the same way by the
 * dangerous-command net, rule matching and grants; risky ones (they change what runs) never are.
 */
import { describe, expect, it } from 'vitest';
import { dangerReason } from '../../src/permission/dangerous.js';
import { commandForMatching, isRiskyEnvName } from '../../src/permission/env-words.js';
import { commandMatches } from '../../src/permission/policy.js';

const risky = [
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'PATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'GIT_SSH_COMMAND',
  'DYLD_INSERT_LIBRARIES',
  'IFS',
  'npm_config_script_shell',
];
const plain = ['CLAUDECODE', 'CI', 'NODE_ENV', 'FORCE_COLOR', 'PYTHONUNBUFFERED', 'GIT_AUTHOR_NAME', 'API_KEY', 'LANG'];

describe('env words', () => {
  it.each(risky)('%s changes what runs', (name) => {
    expect(isRiskyEnvName(name)).toBe(true);
  });
  it.each(plain)('%s does not', (name) => {
    expect(isRiskyEnvName(name)).toBe(false);
  });

  it.each([
    ['CLAUDECODE=1 echo hi', 'echo hi'],
    ['  CI=1 FORCE_COLOR=0   npm test ', 'npm test'],
    ["API_KEY='[redacted]' npm test", 'npm test'],
    ['LD_PRELOAD=/tmp/x.so echo hi', 'LD_PRELOAD=/tmp/x.so echo hi'],
    ['CI=1 PATH=/tmp echo hi', 'PATH=/tmp echo hi'],
    ['A="$(id)" echo hi', 'A="$(id)" echo hi'],
    ['A=$X echo hi', 'A=$X echo hi'],
  ])('%j is compared as %j', (line, expected) => {
    expect(commandForMatching(line)).toBe(expected);
  });

  it.each(risky)('a command with %s in front is dangerous, however it is set', (name) => {
    for (const line of [
      `${name}=/tmp/x echo hi`,
      `env ${name}=/tmp/x echo hi`,
      `export ${name}=/tmp/x; echo hi`,
      `${name}=/tmp/x; echo hi`,
      `cd . && ${name}=x ls`,
      `env ${name}=x -S 'echo hi'`,
    ]) {
      expect(dangerReason(line), line).toBe(`sets ${name}, which changes what runs`);
    }
  });

  it.each(plain)('a command with %s in front is judged as the command', (name) => {
    expect(dangerReason(`${name}=1 echo hi`)).toBeUndefined();
    expect(dangerReason(`env ${name}=1 echo hi`)).toBeUndefined();
    expect(dangerReason(`${name}=1 rm -rf x`)).toBe('recursive rm');
  });

  it('rules see through plain words and single-quoted literals, never risky ones', () => {
    expect(commandMatches('echo hi', "CLAUDECODE=1 TOKEN='[redacted]' echo hi")).toBe(true);
    expect(commandMatches('echo *', 'NODE_OPTIONS=--require=/tmp/x.js echo hi')).toBe(false);
  });
});
