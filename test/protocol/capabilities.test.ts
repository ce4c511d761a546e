import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  buildClientCapabilities,
  capabilitiesView,
  handlerFor,
  type ClientHandlers,
} from '../../src/protocol/capabilities.js';
import { parseWireLog } from '../../src/protocol/wire-log.js';

const MAIN = fileURLToPath(new URL('../fixtures/hermes-0.18.2/main.ndjson', import.meta.url));

const terminal = {
  create: async () => ({ terminalId: 't' }),
  output: async () => ({ output: '', truncated: false }),
  waitForExit: async () => ({ exitCode: 0 }),
  kill: async () => {},
  release: async () => {},
};

describe('capabilitiesView', () => {
  it('reads the real Hermes initialize response', () => {
    const lines = parseWireLog(readFileSync(MAIN, 'utf8'));
    const init = lines.find((l) => l.dir === 'agent->client' && l.msg.id === 1)!.msg.result;
    const c = capabilitiesView(init);
    expect(c.protocolVersion).toBe(1);
    expect(c.supportsLoad).toBe(true);
    expect(['list', 'fork', 'resume', 'close', 'delete'].map((f) => c.supportsSession(f as never))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(c.promptImage).toBe(true);
    expect(c.promptAudio).toBe(false);
    expect(c.promptEmbeddedContext).toBe(false);
    expect(c.mcpHttp).toBe(false); // no mcpCapabilities at all: stdio MCP servers only
    expect(c.mcpSse).toBe(false);
    expect(c.authMethods.map((m) => m.id)).toEqual(['custom', 'hermes-setup']);
    expect(c.agentInfo).toEqual({ name: 'hermes-agent', version: '0.18.2' });
    expect(c.raw).toBe(init);
  });

  it('treats omitted as unsupported, {} as supported, and survives junk', () => {
    const c = capabilitiesView({
      protocolVersion: 1,
      agentCapabilities: {
        sessionCapabilities: { close: {}, delete: null },
        mcpCapabilities: { http: true, sse: false },
        promptCapabilities: { audio: true, embeddedContext: true },
      },
      authMethods: 'nope',
    });
    expect(c.supportsSession('close')).toBe(true);
    expect(c.supportsSession('delete')).toBe(false);
    expect(c.supportsLoad).toBe(false);
    expect([c.mcpHttp, c.mcpSse, c.promptAudio, c.promptEmbeddedContext]).toEqual([true, false, true, true]);
    expect(c.authMethods).toEqual([]);
    expect(c.agentInfo).toBeUndefined();
    expect(capabilitiesView(null).protocolVersion).toBeUndefined();
  });
});

describe('buildClientCapabilities', () => {
  it('advertises nothing without handlers', () => {
    expect(buildClientCapabilities({})).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
  });

  it('advertises exactly the handlers provided', () => {
    const h: ClientHandlers = { readTextFile: async () => ({ content: '' }) };
    expect(buildClientCapabilities(h)).toEqual({ fs: { readTextFile: true, writeTextFile: false }, terminal: false });
    expect(buildClientCapabilities({ ...h, writeTextFile: async () => {}, terminal })).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    });
  });

  it('terminal needs all five methods', () => {
    const { release: _r, ...partial } = terminal;
    expect(buildClientCapabilities({ terminal: partial as never }).terminal).toBe(false);
  });

  it('overrides switch capabilities off but never on', () => {
    const all: ClientHandlers = {
      readTextFile: async () => ({ content: '' }),
      writeTextFile: async () => {},
      terminal,
    };
    expect(buildClientCapabilities(all, { fs: { writeTextFile: false }, terminal: false })).toEqual({
      fs: { readTextFile: true, writeTextFile: false },
      terminal: false,
    });
    expect(buildClientCapabilities({}, { fs: { readTextFile: true }, terminal: true })).toEqual({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
  });

  it('handlerFor binds terminal methods to their object', async () => {
    class Manager {
      prefix = 'T';
      create() {
        return { terminalId: this.prefix + '1' };
      }
      output() {}
      waitForExit() {}
      kill() {}
      release() {}
    }
    const h: ClientHandlers = { terminal: new Manager() as never };
    expect(buildClientCapabilities(h).terminal).toBe(true);
    expect(await handlerFor(h, 'terminal/create')!({}, {} as never)).toEqual({ terminalId: 'T1' });
    expect(handlerFor({}, 'fs/read_text_file')).toBeUndefined();
    expect(handlerFor({}, 'craft/drainMidTurnQueue')).toBeUndefined();
  });
});
