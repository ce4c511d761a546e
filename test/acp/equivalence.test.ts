/**
 * Equivalence: a recorded real agent (test/fixtures/agents, played by fixture-agent.ts) and the demo
 * agent driven once directly and once through `talaria acp` give the same observable result —
 * text, stop reason, tool calls (title, kind, final status) — as `talaria run --json` reports it.
 * The listed fixes (messageId, settling, configOptions) do not show here: the direct run gets them
 * from the same core.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { editorEnv, talariaAcpCommand } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

vi.setConfig({ testTimeout: 240_000 });

const PLAYER = fileURLToPath(new URL('../fakes/bin/fixture-agent.ts', import.meta.url));

function player(agent: string, fixture: string): string {
  const copy = join(tempDir('acp-eq'), 'recording.ndjson');
  copyFileSync(fileURLToPath(new URL(`../fixtures/agents/${agent}/${fixture}.ndjson`, import.meta.url)), copy);
  return `${nodeCommand(PLAYER)} "${copy}"`;
}

type Run = {
  text: string;
  stopReason: string;
  errorCode?: string;
  toolCalls: { title: string; kind?: string; status: string }[];
};

async function runJson(agentArgs: string[], prompt: string, env: Record<string, string>): Promise<Run> {
  const cwd = tempDir('acp-eq-cwd');
  const r = await runCli(['run', '--json', '--approve', 'all', ...agentArgs, prompt], { cwd, env });
  // Each run has its own workspace folder: compare with it named <cwd>.
  const j = JSON.parse(r.stdout.split(cwd).join('<cwd>')) as Run & {
    toolCalls: Record<string, unknown>[];
    error?: { code?: string } | null;
  };
  return {
    text: j.text,
    stopReason: j.stopReason,
    ...(j.error?.code ? { errorCode: j.error.code } : {}),
    toolCalls: j.toolCalls.map((c) => ({
      title: String(c.title),
      ...(c.kind ? { kind: String(c.kind) } : {}),
      status: String(c.status),
    })),
  };
}

// Every recorded fixture with a prompt (cancel and no-credentials recordings need a client that
// cancels or signs in, and copilot/session-new has no prompt: not here), then the error recordings,
// which must fail the same way (error code included) direct and through the proxy.
const CASES: [string, string, string][] = [
  ['claude-agent-acp', 'text', 'Say hello'],
  ['claude-agent-acp', 'shell', 'Run a command'],
  ['codex-acp', 'write', 'Write a file'],
  ['claude-code-acp', 'shell', 'Run a command'],
  ['gemini-cli', 'text', 'Say hello'],
  ['gemini-cli', 'write', 'Write a file'],
  ['kilo', 'write', 'Write a file'],
  ['pi', 'text', 'Say hello'],
  ['pi', 'shell', 'Run a command'],
  ['qwen-code', 'text', 'Say hello'],
  ['qwen-code', 'shell', 'Run a command'],
  ['qwen-code', 'write', 'Write a file'],
];
const ERROR_CASES: [string, string][] = [
  ['codex-acp', 'error-400'],
  // Recorded signed out: its answer text is an auth error (Talaria's cursor quirk: auth_required).
  ['cursor', 'text'],
  ['copilot', 'error-400'],
  ['gemini-cli', 'error-400'],
  ['opencode', 'error-400'],
  ['pi', 'error-400'],
  ['qwen-code', 'error-400'],
];

describe.concurrent('direct and through talaria acp: the same observable thread', () => {
  for (const [agent, fixture, prompt] of CASES) {
    it(`${agent}/${fixture}`, async () => {
      const { env } = editorEnv();
      const direct = await runJson(['--agent-cmd', player(agent, fixture)], prompt, env);
      const inner = player(agent, fixture).replace(/"/g, "'");
      const proxied = await runJson(
        ['--agent-cmd', talariaAcpCommand(`${env.TALARIA_HOME}-inner`, `--approve all --agent-cmd "${inner}"`)],
        prompt,
        {
          ...env,
          TALARIA_HOME: `${env.TALARIA_HOME}-outer`,
        },
      );
      expect(proxied).toEqual(direct);
      expect(direct.stopReason).not.toBe('error');
    });
  }

  for (const [agent, fixture] of ERROR_CASES) {
    it(`${agent}/${fixture}: the same error`, async () => {
      const { env } = editorEnv();
      const direct = await runJson(['--agent-cmd', player(agent, fixture)], 'Say hello', env);
      const inner = player(agent, fixture).replace(/"/g, "'");
      const proxied = await runJson(
        ['--agent-cmd', talariaAcpCommand(`${env.TALARIA_HOME}-inner`, `--approve all --agent-cmd "${inner}"`)],
        'Say hello',
        {
          ...env,
          TALARIA_HOME: `${env.TALARIA_HOME}-outer`,
        },
      );
      expect(direct.stopReason).toBe('error');
      expect(proxied).toEqual(direct);
    });
  }

  it('the demo agent (tour: thinking, plan, read, edit, run)', async () => {
    const { env } = editorEnv();
    const direct = await runJson(['--agent', 'demo'], 'tour', env);
    const proxied = await runJson(
      ['--agent-cmd', talariaAcpCommand(`${env.TALARIA_HOME}-inner`, '--approve all --agent demo')],
      'tour',
      {
        ...env,
        TALARIA_HOME: `${env.TALARIA_HOME}-outer`,
      },
    );
    expect(proxied).toEqual(direct);
    expect(direct.toolCalls.length).toBeGreaterThan(0);
  });
});
