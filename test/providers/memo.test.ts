/**
 * Version caches belong to the environment (one per harness), not to the module (issue 9):
 * a second harness, or the same one after an upgrade in place, sees the agent as it is now.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gemini } from '../../src/providers/builtin.js';
import { currentEnv } from '../../src/providers/locate.js';
import { cleanup, isolatedEnv, script, tempDir } from './helpers.js';

afterEach(cleanup);

describe('provider memo', () => {
  it('gemini’s version is asked once per environment and again after the binary changed', async () => {
    const bin = tempDir('bin-');
    const log = join(bin, 'asked');
    const gem = script(join(bin, 'gemini'), `echo x >> ${log}\necho 0.27.0`);
    const asked = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    const envA = { ...isolatedEnv({ searchPath: [bin] }), memo: new Map<string, unknown>() };
    expect((await gemini.locate(envA))?.args).toEqual(['--experimental-acp']);
    expect((await gemini.locate(envA))?.args).toEqual(['--experimental-acp']);
    expect(asked()).toBe(1);
    // Upgraded in place.
    writeFileSync(gem, `#!/bin/sh\necho x >> ${log}\necho 0.61.0 # upgraded\n`);
    expect((await gemini.locate(envA))?.args).toEqual(['--acp']);
    // Another harness's environment keeps its own answers.
    const envB = { ...isolatedEnv({ searchPath: [bin] }), memo: new Map<string, unknown>() };
    expect((await gemini.locate(envB))?.args).toEqual(['--acp']);
    expect(asked()).toBe(3);
    expect(envA.memo.size).toBeGreaterThan(0);
  });

  it('currentEnv() gives every harness its own memo', () => {
    expect(currentEnv().memo).not.toBe(currentEnv().memo);
  });
});
