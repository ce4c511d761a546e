import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { talariaHome } from '../../src/os/home.js';

describe('talariaHome: one answer for every part of Talaria', () => {
  it('$TALARIA_HOME made absolute; blank or unset: .talaria in the home folder given, else the user’s', () => {
    expect(talariaHome({ env: { TALARIA_HOME: '/t' }, homeDir: '/h' })).toBe('/t');
    expect(talariaHome({ env: { TALARIA_HOME: 'rel/t' }, homeDir: '/h' })).toBe(resolve('rel/t'));
    expect(talariaHome({ env: { TALARIA_HOME: ' ' }, homeDir: '/h' })).toBe('/h/.talaria');
    expect(talariaHome({ env: {}, homeDir: '/h' })).toBe('/h/.talaria');
    expect(talariaHome({ env: {} })).toBe(join(homedir(), '.talaria'));
  });
});
