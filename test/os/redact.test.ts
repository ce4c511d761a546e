import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDACTED, redactFrame, redactMessage, redactMessageText } from '../../src/os/redact.js';
import { formatWireLine } from '../../src/protocol/wire-log.js';
import type { Frame, RawMessage } from '../../src/protocol/types.js';

const SECRET = 'sk-live-0123456789';

const stdio = {
  name: 'gh',
  command: 'gh-mcp',
  args: ['--stdio'],
  env: [
    { name: 'GITHUB_TOKEN', value: SECRET },
    { name: 'DEBUG', value: '1' },
  ],
};
const http = {
  type: 'http',
  name: 'api',
  url: `https://bot:${SECRET}@mcp.example/x`,
  headers: [{ name: 'Authorization', value: `Bearer ${SECRET}` }],
};
const req = (method: string, params: unknown, id = 1): RawMessage => ({ jsonrpc: '2.0', id, method, params });

describe('redaction of secret-bearing fields', () => {
  for (const method of ['session/new', 'session/load', 'session/resume', 'session/fork']) {
    it(`${method}: mcpServers env and header values, and a URL password, masked; names and shape kept`, () => {
      const msg = req(method, { sessionId: 's', cwd: '/w', mcpServers: [stdio, http] });
      const out = redactMessage(msg);
      expect(JSON.stringify(out)).not.toContain(SECRET);
      expect(out.params).toEqual({
        sessionId: 's',
        cwd: '/w',
        mcpServers: [
          {
            ...stdio,
            env: [
              { name: 'GITHUB_TOKEN', value: REDACTED },
              { name: 'DEBUG', value: REDACTED },
            ],
          },
          {
            ...http,
            url: expect.stringMatching(/^https:\/\/bot:.*redacted.*@mcp\.example\/x$/),
            headers: [{ name: 'Authorization', value: REDACTED }],
          },
        ],
      });
      // The caller's object is never changed.
      expect(JSON.stringify(msg)).toContain(SECRET);
    });
  }

  it('map-shaped env / headers (older dialects) are masked too', () => {
    const out = redactMessage(
      req('session/new', { cwd: '/w', mcpServers: [{ name: 'x', command: 'y', env: { TOKEN: SECRET } }] }),
    );
    expect((out.params as { mcpServers: unknown[] }).mcpServers).toEqual([
      { name: 'x', command: 'y', env: { TOKEN: REDACTED } },
    ]);
  });

  it('terminal/create env, authenticate params but the method id, providers/set headers', () => {
    const term = redactMessage(
      req('terminal/create', {
        sessionId: 's',
        command: 'deploy',
        env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: SECRET }],
      }),
    );
    expect(term.params).toEqual({
      sessionId: 's',
      command: 'deploy',
      env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: REDACTED }],
    });
    const auth = redactMessage(
      req('authenticate', {
        methodId: 'gateway',
        _meta: { gateway: { baseUrl: 'http://x', headers: { 'x-api-key': SECRET }, retries: 3 } },
      }),
    );
    expect(auth.params).toEqual({
      methodId: 'gateway',
      _meta: { gateway: { baseUrl: REDACTED, headers: { 'x-api-key': REDACTED }, retries: REDACTED } },
    });
    const prov = redactMessage(
      req('providers/set', {
        providerId: 'main',
        apiType: 'openai',
        baseUrl: 'http://x',
        headers: { Authorization: SECRET },
      }),
    );
    expect(prov.params).toEqual({
      providerId: 'main',
      apiType: 'openai',
      baseUrl: 'http://x',
      headers: { Authorization: REDACTED },
    });
  });

  it('frames that cannot hold a secret come back as the very same object and the raw bytes as received', () => {
    const update: RawMessage = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 's',
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: SECRET } },
      },
    };
    expect(redactMessage(update)).toBe(update);
    const raw = '{"jsonrpc":"2.0", "method":"session/update","params":{}}';
    expect(redactFrame({ msg: update }, raw)).toBe(raw);
    const empty = req('session/new', { cwd: '/w', mcpServers: [] });
    expect(redactMessage(empty)).toBe(empty);
    const plainAuth = req('authenticate', { methodId: 'hermes-setup' });
    expect(redactMessage(plainAuth)).toBe(plainAuth);
    const response: RawMessage = { jsonrpc: '2.0', id: 1, result: { sessionId: 's' } };
    expect(redactFrame({ msg: response })).toBe(JSON.stringify(response));
    // A masked frame is re-serialised (its raw line held the secret).
    const masked = redactFrame(
      { msg: req('terminal/create', { env: [{ name: 'K', value: SECRET }] }) },
      'raw with ' + SECRET,
    );
    expect(masked).not.toContain(SECRET);
    expect(JSON.parse(masked).params.env).toEqual([{ name: 'K', value: REDACTED }]);
  });

  it('stored text: a substring test first, then the same masking; unparsable text untouched', () => {
    const text = JSON.stringify(req('session/load', { sessionId: 's', cwd: '/w', mcpServers: [stdio] }));
    expect(redactMessageText(text)).not.toContain(SECRET);
    expect(redactMessageText(text.replace('session/load', 'session\\/load'))).not.toContain(SECRET);
    const other = JSON.stringify(req('session/prompt', { prompt: [{ type: 'text', text: SECRET }] }));
    expect(redactMessageText(other)).toBe(other);
    expect(redactMessageText('{"method":"authenticate", broken')).toBe('{"method":"authenticate", broken');
  });

  it('formatWireLine (the --wire-log writer) masks; every recorded fixture line without a secret field stays byte-identical', () => {
    const msg = req('session/new', { cwd: '/w', mcpServers: [stdio] });
    const f: Frame = { t_ms: 5, dir: 'client->agent', msg, raw: JSON.stringify(msg) };
    expect(formatWireLine(f)).not.toContain(SECRET);
    expect(JSON.parse(formatWireLine(f)).msg.params.mcpServers[0].env[0]).toEqual({
      name: 'GITHUB_TOKEN',
      value: REDACTED,
    });
    const dir = fileURLToPath(new URL('../fixtures/hermes-0.18.2/', import.meta.url));
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ndjson'))) {
      for (const line of readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter((l) => l.trim())) {
        const { msg } = JSON.parse(line) as { msg: RawMessage };
        expect(redactFrame({ msg })).toBe(JSON.stringify(msg));
      }
    }
  });
});
