/**
 * The fake model's steering words, as in the recorded fixtures (TOOLS, EDIT2, DANGER,
 * TODO, THINK, SLOW, OVERFLOW, AUTHFAIL) plus extras for tests: WRITE <path>,
 * RUN <cmd>, MAXITER, MCP [tool]. Each returns overrides for the turn result.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { terminal, writeFile } from './actions.js';
import { compact } from './compaction.js';
import { pause } from './runtime.js';
import * as T from './tools.js';
import type { Turn, TurnInput, TurnResult } from './turn.js';

export type Script = (t: Turn, input: TurnInput) => Promise<Partial<TurnResult> | void>;

export const SCRIPTS: Array<[RegExp, Script]> = [
  [/^TOOLS\b/, async (t) => {
    const steps = [
      () => t.tool('read_file', { path: resolve(t.cwd, 'notes.txt') }, async () => {
        const p = resolve(t.cwd, 'notes.txt');
        const c = existsSync(p) ? readFileSync(p, 'utf8') : null;
        return { result: T.readResult(p, c), status: c === null ? 'failed' : 'completed', live: false };
      }),
      () => terminal(t, 'echo hello-from-terminal'),
      () => writeFile(t, 'out.txt', 'written by fake model\n'),
      () => t.say('All three tools ran. Done.'),
    ];
    for (const step of steps) if (!t.rt.cancelled) await step();
  }],
  [/^EDIT2\b/, async (t) => {
    await writeFile(t, 'out2.txt', 'second file\n');
    if (!t.rt.cancelled) await t.say('Second edit done.');
  }],
  [/^WRITE\s+(\S+)/, async (t, input) => {
    await writeFile(t, /^WRITE\s+(\S+)/.exec(input.text)![1]!, 'written by fake model\n');
    if (!t.rt.cancelled) await t.say('Write finished.');
  }],
  [/^DANGER\b/, async (t) => {
    await terminal(t, `rm -rf ${resolve(t.cwd, 'junkdir')}`);
    if (!t.rt.cancelled) await t.say('Dangerous step finished.');
  }],
  [/^RUN\s+\S/, async (t, input) => {
    await terminal(t, input.text.replace(/^RUN\s+/, ''));
    if (!t.rt.cancelled) await t.say('Command finished.');
  }],
  [/^TODO\b/, async (t) => {
    await t.tool('todo', { todos: T.TODOS }, async () => ({
      result: T.todoResult(T.TODOS), status: 'completed', live: true, extra: [T.planUpdate(T.TODOS)],
    }));
    if (!t.rt.cancelled) await t.say('Plan recorded.');
  }],
  [/^THINK\b/, (t) => t.say('Thought about it: the answer is 42. ', { thought: 'Let me think about this carefully. ' })],
  [/^SLOW\b/, (t) => t.say('This reply streams slowly so you can cancel it before it ends.', { delay: t.ctx.settings.slowMs })],
  [/^OVERFLOW\b/, async (t) => {
    await pause(t.rt, t.ctx.settings.delayMs * 5); // the compression attempts
    t.once('Context length exceeded: max compression attempts (3) reached.');
    if (t.rt.rec.history.length > 6) t.rt.rec.history = compact(t.rt.rec.history, 6);
    t.rt.contextSize = 8192;
    return { usage: false };
  }],
  [/^AUTHFAIL\b/, async (t) => {
    t.once('HTTP 401: Incorrect API key provided: sk-local***');
    return { usage: false };
  }],
  [/^MAXITER\b/, async (t) => {
    for (let i = 1; i <= 3 && !t.rt.cancelled; i++) await terminal(t, `echo iteration-${i}`);
    if (t.rt.cancelled) return;
    t.ctx.peer.writeRaw('⚠️  Reached maximum iterations (90). Requesting summary...');
    await t.say('Reached the iteration limit. Summary: ran 3 commands.');
  }],
  [/^MCP\b/, async (t, input) => {
    const server = [...t.rt.mcp.keys()][0];
    if (!server) return t.say('No MCP tools are available in this session.');
    const tool = /^MCP\s+(\w+)/.exec(input.text)?.[1] ?? 'echo';
    const name = `mcp__${server}__${tool}`;
    await t.tool(name, {}, async () => ({ result: `${name} result (emulated; no MCP server was started)`, status: 'completed', live: true }));
    if (!t.rt.cancelled) await t.say(`MCP tool ${name} answered.`);
  }],
];
