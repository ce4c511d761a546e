import { describe, expect, it } from 'vitest';
import { acpUrl } from '../../src/providers/acp-url.js';
import { isLoopbackHost } from '../../src/os/loopback.js';

describe('acpUrl: where a remote ACP endpoint is, and its token', () => {
  it("takes serve's link as printed: http → ws, the bare origin → /acp, the token out of the fragment", () => {
    expect(acpUrl('http://127.0.0.1:4000/#token=abc', { what: 'x' })).toEqual({
      url: 'ws://127.0.0.1:4000/acp',
      token: 'abc',
      loopback: true,
    });
    expect(acpUrl('wss://box.example/acp?agent=hermes#token=t1', { what: 'x' })).toEqual({
      url: 'wss://box.example/acp?agent=hermes',
      token: 't1',
      loopback: false,
    });
    expect(acpUrl('https://box.example', { what: 'x', envToken: 'e' }).url).toBe('wss://box.example/acp');
  });

  it('--token wins over the fragment, which wins over TALARIA_TOKEN', () => {
    expect(acpUrl('ws://localhost:1/acp#token=frag', { what: 'x', token: 'flag', envToken: 'env' }).token).toBe('flag');
    expect(acpUrl('ws://localhost:1/acp#token=frag', { what: 'x', envToken: 'env' }).token).toBe('frag');
    expect(acpUrl('ws://localhost:1/acp', { what: 'x', envToken: 'env' }).token).toBe('env');
    expect(acpUrl('ws://[::1]:1/acp', { what: 'x' }).token).toBeUndefined();
  });

  it('refuses plain ws:// off loopback, a token-less remote, and what is not an ACP URL', () => {
    expect(() => acpUrl('ws://10.0.0.5:4000/acp#token=t', { what: '--agent-url' })).toThrow(
      /--agent-url: refusing plain ws:\/\/ to 10\.0\.0\.5, which is not loopback/,
    );
    expect(() => acpUrl('http://box.example:4000/#token=t', { what: '--attach' })).toThrow(/refusing plain ws:\/\//);
    expect(() => acpUrl('wss://box.example/acp', { what: '--attach' })).toThrow(/a token is required/);
    expect(() => acpUrl('ftp://box.example/acp', { what: '--attach' })).toThrow(/not an ACP transport/);
    expect(() => acpUrl('not a url', { what: '--attach' })).toThrow(/not a URL/);
  });

  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.3.2.1', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['10.0.0.1', 'example.com', '127.example.com', '::2']) expect(isLoopbackHost(h)).toBe(false);
  });
});
