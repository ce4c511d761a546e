/**
 * What the fake model does for each keyword and `[[token]]` (research fake_openai.py's
 * decide(), step by step): TOOLS, TOOLSLOW, RUN <cmd>, WRITE <path>, EDIT2, DANGER, TODO,
 * THINK, SLOW, OVERFLOW, AUTHFAIL, MCP [tool], COMPRESSME (rotate.ts), DELEGATE (delegate.ts), the emulator's MAXITER, and the tokens
 * [[bash: C]] [[read: P]] [[write: P | text]] [[error: N | msg]] [[slow: N | ms]] [[think: T]].
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { terminal, writeFile } from './actions.js';
import type { Pick } from './model.js';
import { overflow } from './overflow.js';
import { compressMe } from './rotate.js';
import { delegate } from './delegate.js';
import { MCP_TOOLS } from './runtime.js';
import * as T from './tools.js';
import type { Turn, TurnInput } from './turn.js';

type Handler = (t: Turn, arg: string, input: TurnInput, userText: string) => Promise<void>;

function readFile(t: Turn, target: string): Promise<void> {
  const path = resolve(t.cwd, target);
  return t.tool('read_file', { path }, async () => {
    const c = existsSync(path) ? readFileSync(path, 'utf8') : null;
    return { raw: T.readRaw(path, c, c === null ? 0 : statSync(path).size), live: false };
  });
}

/** HTTP errors come back as `HTTP <status>: <provider message>` (the message verbatim). */
function httpError(t: Turn, status: number, message?: string): void {
  t.fail(`HTTP ${status}: ${message || (status === 401 ? t.ctx.settings.authError : `Fake model: error ${status}`)}`);
}

const done = (t: Turn) => t.say(`Done: ${t.lastRaw.slice(0, 80)}`);

const KEYWORD: Record<string, Handler> = {
  TOOLS: async (t) => {
    const steps = [
      () => readFile(t, 'notes.txt'),
      () => terminal(t, 'echo hello-from-terminal'),
      () => writeFile(t, 'out.txt', 'written by fake model\n'),
      () => t.say('All three tools ran. Done.'),
    ];
    for (const step of steps) if (!t.rt.cancelled) await step();
  },
  TOOLSLOW: async (t) => {
    await terminal(t, 'sleep 4; echo slow-tool-done');
    await t.say(`Slow tool finished. Last tool result: ${t.lastRaw.slice(0, 300)}`);
  },
  RUN: async (t, arg) => {
    await terminal(t, arg.slice(3).trim());
    await t.say('Command finished.');
  },
  WRITE: async (t, arg) => {
    await writeFile(t, arg.slice(5).trim().split(/\s+/)[0] || 'out.txt', 'written by fake model\n');
    await t.say('Write finished.');
  },
  EDIT2: async (t) => {
    await writeFile(t, 'out2.txt', 'second file\n');
    await t.say('Second edit done.');
  },
  DANGER: async (t) => {
    await terminal(t, `rm -rf ${resolve(t.cwd, 'junkdir')}`);
    await t.say('Dangerous step finished.');
  },
  TODO: async (t) => {
    await t.tool('todo', { todos: T.TODOS }, async () => ({
      raw: T.todoRaw(T.TODOS),
      live: true,
      extra: [T.planUpdate(T.TODOS)],
    }));
    await t.say('Plan recorded.');
  },
  THINK: (t) => t.say('Thought about it: the answer is 42. ', { thought: 'Let me think about this carefully. ' }),
  SLOW: (t) =>
    t.say('This reply streams slowly so you can cancel it before it ends.', { delay: t.ctx.settings.slowMs }),
  OVERFLOW: (t) => overflow(t),
  COMPRESSME: (t) => compressMe(t),
  DELEGATE: (t) => delegate(t),
  AUTHFAIL: async (t) => httpError(t, 401),
  MCP: async (t, arg, _input, userText) => {
    // The research MCP server ("mini"): echo(text) → "<server>-echo: <text>", add(a=1, b=2). The
    // emulator starts no server, so it cannot list other tools: it trusts the name the prompt
    // gives right after "MCP" (the research fake falls back to the first tool offered).
    const named = [/^MCP\s+(\w+)/.exec(arg)?.[1], ...[...userText.matchAll(/\bMCP\s+(\w+)/g)].map((m) => m[1])].filter(
      (w): w is string => !!w,
    );
    const want = named.find((w) => MCP_TOOLS.includes(w)) ?? [...userText.matchAll(/\bMCP\s+(\w+)/g)][0]?.[1] ?? 'echo';
    const server = [...t.rt.mcp.keys()][0];
    if (!server) return t.say('No MCP tools are available in this session.');
    const name = `mcp__${server}__${want}`;
    const args: Record<string, unknown> = want === 'echo' ? { text: 'hi' } : {};
    const result =
      want === 'echo'
        ? `${server}-echo: ${String(args.text)}`
        : want === 'add'
          ? '3'
          : `${want} called (emulated; no MCP server was started)`;
    await t.tool(name, args, async () => ({
      raw: T.mcpRaw(name, { result, structuredContent: { result } }),
      live: true,
    }));
    await t.say(`MCP tool ${name} answered: ${t.lastRaw.slice(0, 200)}`);
  },
  MAXITER: async (t) => {
    for (let i = 1; i <= 3 && !t.rt.cancelled; i++) await terminal(t, `echo iteration-${i}`);
    if (t.rt.cancelled) return;
    t.ctx.peer.writeRaw('⚠️  Reached maximum iterations (90). Requesting summary...');
    await t.say('Reached the iteration limit. Summary: ran 3 commands.');
  },
};

const partition = (s: string): [string, string | null] => {
  const i = s.indexOf('|');
  return i < 0 ? [s, null] : [s.slice(0, i), s.slice(i + 1)];
};

const TOKEN: Record<string, Handler> = {
  bash: async (t, val) => {
    await terminal(t, val);
    await done(t);
  },
  read: async (t, val) => {
    await readFile(t, val);
    await done(t);
  },
  write: async (t, val) => {
    const [path, content] = partition(val);
    await writeFile(
      t,
      path.trim(),
      content === null ? 'Written by the fake model.\n' : content.trim().replace(/\\n/g, '\n'),
    );
    await done(t);
  },
  error: async (t, val) => {
    const [code, msg] = partition(val);
    const status = Number.parseInt(code.trim(), 10);
    httpError(t, Number.isFinite(status) ? status : 400, msg?.trim());
  },
  slow: async (t, val) => {
    const [n, ms] = partition(val);
    const count = Math.max(1, Math.min(Number.parseInt(n.trim(), 10) || 10, 10_000));
    const delay = ms === null ? 100 : Number.parseInt(ms.trim(), 10) || 100;
    const pieces = Array.from({ length: count }, (_, i) => `chunk ${i + 1}/${count} `);
    await t.say(pieces.join(''), { delay, pieces });
  },
  think: (t, _val, _input, userText) => t.say(`You said: ${userText.trim()}`),
};

async function echo(t: Turn, input: TurnInput, userText: string): Promise<void> {
  if (input.images.length) {
    const what = `${input.images.length} image(s) (${input.images.join(', ')})`;
    return t.say(
      t.ctx.cfg.supportsVision
        ? `Image forwarded to the model: ${what}. I can see it.`
        : `Image described by the auxiliary model: ${what}. The model did not see it.`,
    );
  }
  const att = input.attachments.length ? ` (attachments: ${input.attachments.join(', ')})` : '';
  return t.say(`Hello from the fake model! You said: ${userText.trim()}${att}`);
}

export function runScript(t: Turn, pick: Pick, input: TurnInput, userText: string): Promise<void> {
  if (pick.kind === 'kw') return KEYWORD[pick.name]!(t, pick.arg, input, userText);
  if (pick.kind === 'token') return TOKEN[pick.name]!(t, pick.arg, input, userText);
  return echo(t, input, userText);
}
