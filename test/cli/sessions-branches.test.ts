import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { treeLines } from '../../src/cli/commands/sessions-branches.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** `talaria sessions branches|rewind|continue` (issue 14), each command a new process, with the demo agent. */
function place() {
  const cwd = tempDir('branch');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  return {
    cwd,
    env: {
      ...demoEnv(tempDir('branch-home')),
      PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: tempDir('user'),
    },
  };
}

type Wire = { dir: string; msg: { method?: string; params?: { prompt?: { text?: string }[] } } };
const promptsOf = async (p: ReturnType<typeof place>, id: string) =>
  (await runCli(['sessions', 'export', id, '--format', 'fixture'], p)).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Wire)
    .filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt')
    .map((f) => f.msg.params!.prompt![0]!.text!);

describe('sessions branches, rewind, continue (demo agent, across processes)', () => {
  it('rewind three messages back in one process, send the edited message in another, list the tree, continue the old branch', async () => {
    const p = place();
    const first = await runCli(['run', '--json', 'say alpha'], p);
    const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    for (const m of ['say beta', 'say gamma', 'say delta'])
      expect((await runCli(['run', '--session', id, m], p)).code).toBe(EXIT.OK);

    const rw = await runCli(['sessions', 'rewind', id, '--back', '3'], p);
    expect(rw.code).toBe(EXIT.OK);
    const branch = rw.stdout.trim();
    expect(rw.stderr).toContain(`send the edited message with: talaria run --session ${branch}`);
    // The edited message, in a new process: the agent gets the branch's history first.
    expect((await runCli(['run', '--session', branch, 'say BETA'], p)).code).toBe(EXIT.OK);
    const sent = await promptsOf(p, branch);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(
      /^\[Talaria\] This conversation continues from an earlier session \(the user went back to an earlier message\)/,
    );
    expect(sent[0]).toContain('User: say alpha');
    expect(sent[0]).not.toMatch(/beta|gamma|delta/);
    expect(sent[0]!.endsWith('\n\nsay BETA')).toBe(true);
    // A later message of the branch goes as it is.
    await runCli(['run', '--session', branch, 'say epsilon'], p);
    expect((await promptsOf(p, branch)).at(-1)).toBe('say epsilon');

    const tree = await runCli(['sessions', 'branches', branch], p);
    expect(tree.code).toBe(EXIT.OK);
    expect(tree.stdout).toMatch(new RegExp(`^- ${id}  demo  root.*\\n  \\* ${branch}  demo  rewind`));
    const json = JSON.parse((await runCli(['sessions', 'branches', id, '--json'], p)).stdout) as {
      current: string;
      tree: { id: string; children: { id: string; reason: string }[] };
    };
    expect(json).toMatchObject({ current: id, tree: { id, children: [{ id: branch, reason: 'rewind' }] } });

    // Switch back: the old branch continues where it was.
    expect((await runCli(['run', '--session', id, 'say zeta'], p)).code).toBe(EXIT.OK);
    expect(await promptsOf(p, id)).toEqual(['say alpha', 'say beta', 'say gamma', 'say delta', 'say zeta']);
  }, 300_000); // a dozen CLI processes, each starting the demo agent

  it('a continue in the same agent says where it came from, never "continued from ?"', async () => {
    const p = place();
    const id = (JSON.parse((await runCli(['run', '--json', 'just one'], p)).stdout) as { sessionId: string }).sessionId;
    const cont = await runCli(['sessions', 'continue', id, '--agent', 'demo'], p);
    expect(cont.code, cont.stderr).toBe(EXIT.OK);
    const tree = await runCli(['sessions', 'branches', id], p);
    expect(tree.stdout).toContain(`${cont.stdout.trim()}  demo  continued from demo`);
    expect(tree.stdout).not.toContain('?');
    // Rows stored before it was always kept: the parent's agent is the one.
    const old = { id: 'b', provider: 'demo', reason: 'continue' as const, createdAt: 0, reseeds: 0, children: [] };
    expect(treeLines({ id: 'a', provider: 'hermes', createdAt: 0, reseeds: 0, children: [old] }, 'b')[1]).toBe(
      '  * b  demo  continued from hermes',
    );
  }, 120_000);

  it('continue --agent needs a known agent; rewind further back than there are messages is bad usage', async () => {
    const p = place();
    const id = (JSON.parse((await runCli(['run', '--json', 'just one'], p)).stdout) as { sessionId: string }).sessionId;
    expect((await runCli(['sessions', 'rewind', id, '--back', '2'], p)).code).toBe(EXIT.USAGE);
    expect((await runCli(['sessions', 'continue', id], p)).code).toBe(EXIT.USAGE);
    const unknown = await runCli(['sessions', 'continue', id, '--agent', 'nope'], p);
    expect(unknown.code).toBe(EXIT.USAGE);
    expect(unknown.stderr).toContain('unknown agent nope');
  });
});
