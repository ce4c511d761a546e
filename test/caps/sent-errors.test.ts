import '../../src/caps/lockdown.js';
import { describe, it, expect } from 'vitest';
import { connectCaps, E, type CapsLauncher } from '../../src/caps/index.js';
import type { Logger } from '../../src/protocol/types.js';
import { eventually, testHost } from './helpers.js';

describe('caps: errors sent to a peer go to the host logger, not the console', () => {
  it('a refused call reaches the peer as an error and the host logger at debug; console.log keeps working for everything else', async () => {
    const logged: { msg: string; data?: Record<string, unknown> }[] = [];
    const rec = (msg: string, data?: Record<string, unknown>): void =>
      void logged.push({ msg, ...(data ? { data } : {}) });
    const logger: Logger = { debug: rec, info: rec, warn: rec, error: rec };
    const t = await testHost({ host: { logger } });
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    await expect(E(c.bootstrap).fetch('ocapn://nope.talaria/s/forged')).rejects.toThrow(/ref_unknown/);
    await eventually(() => logged.some((l) => l.msg === 'caps: an error was sent to a peer'), 'the sent error logged');
    expect(logged.find((l) => l.msg === 'caps: an error was sent to a peer')!.data!.error).toMatch(/ref_unknown/);
    expect(typeof console.log).toBe('function');
    await c.close();
  });
});
