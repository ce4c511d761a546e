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
import { MAIN, TSX, runCli, tempDir } from '../cli/helpers.js';
import { editorEnv } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const PLAYER = fileURLToPath(new URL('../fakes/bin/fixture-agent.ts', import.meta.url));

function player(agent: string, fixture: string): string {
  const copy = join(tempDir('acp-eq'), 'recording.ndjson');
  copyFileSync(fileURLToPath(new URL(`../fixtures/agents/${agent}/${fixture}.ndjson`, import.meta.url)), copy);
  return `"${process.execPath}" --import "${TSX}" "${PLAYER}" "${copy}"`;
}

type Run = { text: string; stopReason: string; toolCalls: { title: string; kind?: string; status: string }[] };

async function runJson(agentArgs: string[], prompt: string, env: Record<string, string>): Promise<Run> {
  const cwd = tempDir('acp-eq-cwd');
  const r = await runCli(['run', '--json', '--approve', 'all', ...agentArgs, prompt], { cwd, env });
  // Each run has its own workspace folder: compare with it named <cwd>.
  const j = JSON.parse(r.stdout.split(cwd).join('<cwd>')) as Run & { toolCalls: Record<string, unknown>[] };
  return {
    text: j.text,
    stopReason: j.stopReason,
    toolCalls: j.toolCalls.map((c) => ({ title: String(c.title), ...(c.kind ? { kind: String(c.kind) } : {}), status: String(c.status) })),
  };
}

const CASES: [string, string, string][] = [
  ['claude-agent-acp', 'text', 'Say hello'],
  ['codex-acp', 'write', 'Write a file'],
  ['claude-code-acp', 'shell', 'Run a command'],
];

describe.concurrent('direct and through talaria acp: the same observable thread', () => {
  for (const [agent, fixture, prompt] of CASES) {
    it(`${agent}/${fixture}`, async () => {
      const { env } = editorEnv();
      const direct = await runJson(['--agent-cmd', player(agent, fixture)], prompt, env);
      const inner = player(agent, fixture).replace(/"/g, "'");
      const proxied = await runJson(['--agent-cmd', `"${process.execPath}" --import "${TSX}" "${MAIN}" acp --approve all --agent-cmd "${inner}"`], prompt, {
        ...env,
        TALARIA_HOME: `${env.TALARIA_HOME}-outer`,
      });
      expect(proxied).toEqual(direct);
      expect(direct.stopReason).not.toBe('error');
    });
  }

  it('the demo agent (tour: thinking, plan, read, edit, run)', async () => {
    const { env } = editorEnv();
    const direct = await runJson(['--agent', 'demo'], 'tour', env);
    const proxied = await runJson(['--agent-cmd', `"${process.execPath}" --import "${TSX}" "${MAIN}" acp --approve all --agent demo`], 'tour', {
      ...env,
      TALARIA_HOME: `${env.TALARIA_HOME}-outer`,
    });
    expect(proxied).toEqual(direct);
    expect(direct.toolCalls.length).toBeGreaterThan(0);
  });
});
