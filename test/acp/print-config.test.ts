/** `talaria acp --print-config zed|jetbrains`: ready snippets with absolute paths; bad input is a usage error. */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli, tempDir } from '../cli/helpers.js';

vi.setConfig({ testTimeout: 90_000 });

describe.concurrent('talaria acp --print-config', () => {
  it('zed: an agent_servers entry of type custom, absolute command and script, the agent flags', async () => {
    const r = await runCli(['acp', '--print-config', 'zed', '--agent', 'hermes', '--approve', 'edits'], {
      cwd: tempDir('acp-cfg'),
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const entry = JSON.parse(r.stdout).agent_servers.Talaria;
    expect(entry.type).toBe('custom');
    expect(entry.command).toBe(process.execPath);
    expect(isAbsolute(entry.args[0])).toBe(true);
    expect(existsSync(entry.args[0])).toBe(true);
    expect(entry.args.slice(1)).toEqual(['acp', '--agent', 'hermes', '--approve', 'edits']);
    expect(entry.env.PATH).toBe('/usr/bin:/bin');
  });

  it('jetbrains: ~/.jetbrains/acp.json shape (no type), PATH kept for the IDE', async () => {
    const r = await runCli(['acp', '--print-config', 'jetbrains', '--agent-cmd', 'gemini --experimental-acp'], {
      cwd: tempDir('acp-cfg'),
      env: { PATH: '/opt/x/bin:/usr/bin' },
    });
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const entry = JSON.parse(r.stdout).agent_servers.Talaria;
    expect(entry.type).toBeUndefined();
    expect(entry.args.slice(1)).toEqual(['acp', '--agent-cmd', 'gemini --experimental-acp']);
    expect(entry.env.PATH).toBe('/opt/x/bin:/usr/bin');
  });

  it('an unknown editor, a stray argument, both --agent and --agent-cmd: usage errors (exit 2), nothing on stdout', async () => {
    const cwd = tempDir('acp-cfg');
    for (const args of [
      ['acp', '--print-config', 'vim'],
      ['acp', 'extra'],
      ['acp', '--agent', 'demo', '--agent-cmd', 'x'],
    ]) {
      const r = await runCli(args, { cwd });
      expect(r.code, args.join(' ')).toBe(EXIT.USAGE);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^talaria: acp: /);
    }
    const help = await runCli(['acp', '--help'], { cwd });
    expect(help.code).toBe(EXIT.OK);
    expect(help.stdout).toContain('talaria acp --print-config zed|jetbrains');
  });
});
