import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authFix, probeProvider } from '../../src/providers/probe.js';
import { customProvider } from '../../src/providers/custom.js';
import { cleanup, FAKE, isolatedEnv, tempDir } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(cleanup);

const nodeAgent = (name: string, file: string) =>
  customProvider({ name, command: process.execPath, args: nodeArgs(file) });

const AUTH_AGENT = `
let buf = '';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [{ type: 'env_var', id: 'k', name: 'Use FAKE_KEY', vars: [{ name: 'FAKE_KEY' }] }, { id: 'login', name: 'Log in' }] } });
    else if (msg.method === 'session/new') send({ id: msg.id, error: { code: -32000, message: 'Authentication required' } });
  }
});
process.stdin.on('end', () => process.exit(0));
`;

describe('probe (the agent started for real)', () => {
  it('a working agent: initialized, a session opened, ready', async () => {
    const r = await probeProvider(nodeAgent('host agent', FAKE('host-agent.ts')), isolatedEnv(), {
      env: { HOST_AGENT_STATE: tempDir() },
    });
    expect(r).toMatchObject({
      found: true,
      initialized: true,
      sessionOpened: true,
      ready: true,
      gaps: [],
      agentInfo: { name: 'host-agent', version: '1.0.0' },
    });
  });

  it('an agent that dies during initialize: a gap with its stderr, no stack trace', async () => {
    const r = await probeProvider(nodeAgent('broken', FAKE('exit-during-initialize.ts')), isolatedEnv());
    expect(r.initialized).toBe(false);
    expect(r.gaps).toEqual([
      {
        code: 'initialize_failed',
        message: 'broken exited before it was ready: fatal: config.yaml is invalid (line 3).',
        fix: expect.any(String),
      },
    ]);
  });

  it("-32000 on session/new: an auth gap listing the agent's authMethods, fixed by `talaria login`", async () => {
    const file = join(tempDir(), 'auth-agent.mjs');
    writeFileSync(file, AUTH_AGENT);
    const p = customProvider({ name: 'needs key', command: process.execPath, args: [file] });
    const r = await probeProvider(p, isolatedEnv());
    expect(r.initialized).toBe(true);
    expect(r.sessionOpened).toBe(false);
    expect(r.gaps).toEqual([
      {
        code: 'auth',
        message:
          'needs key needs credentials: Authentication required. Sign-in methods: k — Use FAKE_KEY (set FAKE_KEY), login — Log in (agent).',
        // The one method Talaria can carry out (an env_var one is listed, not run).
        fix: 'talaria login needs-key login',
        authMethods: [
          { id: 'k', name: 'Use FAKE_KEY', kind: 'env_var', vars: ['FAKE_KEY'] },
          { id: 'login', name: 'Log in', kind: 'agent' },
        ],
      },
    ]);
    expect(authFix([], 'fallback')).toBe('fallback');
  });

  it('an agent that never answers initialize: a timeout gap', async () => {
    const file = join(tempDir(), 'mute.mjs');
    writeFileSync(file, "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));");
    const r = await probeProvider(
      customProvider({ name: 'mute', command: process.execPath, args: [file] }),
      isolatedEnv(),
      { timeoutMs: 300 },
    );
    expect(r.gaps.map((g) => g.code)).toEqual(['timeout']);
    expect(r.gaps[0]!.message).toBe('mute did not answer initialize within 300 ms.');
  });
});
