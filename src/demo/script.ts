/**
 * The scripted behaviours: the first word of the prompt picks one (`tour`, `read FILE`,
 * `edit FILE`, `write FILE [TEXT]`, `run CMD`, `plan`, `slow`, `fail`, `refuse`, `help`);
 * anything else gets the default friendly reply. Everything is deterministic.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { RPC } from '../protocol/errors.js';
import { editStep, readStep, runStep } from './tools.js';
import { check, say, snippet, think, type TurnIo } from './turn-io.js';
import { userWords } from '../thread/injected.js';

export interface PromptSummary {
  /** The user's words: Talaria's context in front of them (a resent steer, a seed transcript) is not answered. */
  text: string;
  /** Which of Talaria's contexts came with them. */
  wrapper?: 'steer' | 'seed';
  /** Characters of text the prompt carried, context included (what a model would have read). */
  chars: number;
  images: number;
  audio: number;
  resources: number;
}

export function summarize(prompt: acp.ContentBlock[]): PromptSummary {
  const s: PromptSummary = { text: '', images: 0, audio: 0, resources: 0, chars: 0 };
  const texts: string[] = [];
  for (const b of prompt) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'image') s.images++;
    else if (b.type === 'audio') s.audio++;
    else s.resources++;
  }
  const all = texts.join('\n');
  const { words, wrapper } = userWords(all);
  s.text = words;
  s.chars = all.length;
  if (wrapper) s.wrapper = wrapper;
  return s;
}

/** Split `FILE [REST]`, honouring "quoted names with spaces". */
export function splitFileArg(rest: string): { file: string; tail: string } {
  const m = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))\s*([\s\S]*)$/.exec(rest);
  if (!m) return { file: '', tail: '' };
  return { file: m[1] ?? m[2] ?? m[3] ?? '', tail: m[4] ?? '' };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
/** Lines as an editor counts them: a final newline ends the last line rather than starting another; an empty file has none. */
const lineCount = (text: string): number => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

export const KEYWORDS_HELP = [
  'Try one of these prompts:',
  '- `tour`: the showcase, everything at once (thinking, a plan, read, edit and run with permission)',
  '- `read FILE`: read a file in this folder',
  '- `edit FILE` or `write FILE [TEXT]`: change a file, after asking permission',
  '- `run CMD`: run a shell command in this folder, after asking permission',
  '- `plan`: a plan whose steps update as they go',
  '- `slow` (or `long`): stream slowly, so you can cancel mid-turn',
  '- `fail` or `refuse`: see the error paths',
].join('\n');

function attachments(p: PromptSummary): string {
  const parts: string[] = [];
  if (p.images) parts.push(plural(p.images, 'image'));
  if (p.audio) parts.push(plural(p.audio, 'audio clip'));
  if (p.resources) parts.push(plural(p.resources, 'attached resource'));
  return parts.length ? `I received ${parts.join(', ')} (the demo only counts them).\n\n` : '';
}

/** What the demo notes of Talaria's context (a model would read it; the demo answers the user's words). */
const WRAPPED = {
  steer: 'Talaria says my previous answer was interrupted by this correction.',
  seed: 'Talaria sent the earlier conversation along as context.',
} as const;

async function defaultReply(io: TurnIo, p: PromptSummary): Promise<void> {
  const about = snippet(p.text) || '(an empty prompt)';
  await think(
    io,
    `Thinking about: "${about}". This is the offline demo, so no model is consulted.${p.wrapper ? ` ${WRAPPED[p.wrapper]}` : ''}`,
  );
  if (io.model === 'demo-thorough') await think(io, 'Double-checking, because the demo-thorough model is selected.');
  await say(
    io,
    `Hi! I am the Talaria demo agent: offline and scripted, with no AI model behind me (model: ${io.model}).\n\n` +
      `You said: "${about}".\n\n${attachments(p)}${KEYWORDS_HELP}\n`,
  );
}

type Entry = acp.PlanEntry;

async function sendPlan(io: TurnIo, entries: Entry[]): Promise<void> {
  check(io);
  await io.send({ sessionUpdate: 'plan', entries: entries.map((e) => ({ ...e })) });
}

/** Run `steps` under a plan, marking each entry in_progress then completed. */
async function withPlan(io: TurnIo, titles: string[], steps: Array<() => Promise<void>>): Promise<void> {
  const entries: Entry[] = titles.map((content) => ({ content, priority: 'medium', status: 'pending' }));
  await sendPlan(io, entries);
  for (const [i, step] of steps.entries()) {
    const e = entries[i];
    if (!e) break;
    e.status = 'in_progress';
    await sendPlan(io, entries);
    await step();
    e.status = 'completed';
    await sendPlan(io, entries);
  }
}

async function planScript(io: TurnIo): Promise<void> {
  await think(io, 'Making a three-step demo plan.');
  await withPlan(
    io,
    ['Read the request', 'Sketch an answer', 'Write the reply'],
    [
      () => say(io, 'Step 1: read the request. '),
      () => say(io, 'Step 2: sketch an answer. '),
      () => say(io, 'Step 3: write the reply. The plan is done; it was a demo plan.\n'),
    ],
  );
}

async function slowScript(io: TurnIo): Promise<void> {
  const n = io.timing.slowChunks;
  const id = io.toolCallId();
  await io.send({
    sessionUpdate: 'tool_call',
    toolCallId: id,
    title: `Slow demo: streaming ${n} chunks`,
    kind: 'think',
    status: 'in_progress',
  });
  const messageId = io.messageId();
  for (let i = 1; i <= n; i++) {
    check(io);
    await io.send({
      sessionUpdate: 'agent_message_chunk',
      messageId,
      content: { type: 'text', text: `Chunk ${i} of ${n} from the slow demo. ` },
    });
    await io.pause(io.timing.slowDelayMs);
  }
  check(io);
  await io.send({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed' });
  await say(io, '\nDone: nothing was cancelled this time.\n');
}

/** A file for the tour to read: README first, else the first regular file by name. */
function pickFile(cwd: string): string | null {
  let names: string[];
  try {
    names = readdirSync(cwd).sort();
  } catch {
    return null;
  }
  const regular = names.filter((n) => {
    try {
      return !n.startsWith('.') && statSync(join(cwd, n)).isFile();
    } catch {
      return false;
    }
  });
  return regular.find((n) => /^readme(\.|$)/i.test(n)) ?? regular[0] ?? null;
}

export const TOUR_FILE = 'talaria-demo.txt';
export const TOUR_COMMAND = 'echo "Hello from the Talaria demo agent"';

async function tourScript(io: TurnIo): Promise<void> {
  await think(io, 'Planning a tour of everything the demo agent can do.');
  await say(
    io,
    'Welcome to the Talaria demo tour! I will read a file, edit one and run a command, asking permission where it matters.\n\n',
  );
  const file = pickFile(io.cwd);
  let left = false;
  await withPlan(
    io,
    ['Read a file in this folder', `Edit ${TOUR_FILE} (asks permission)`, 'Run echo (asks permission)'],
    [
      async () => {
        if (file) await readStep(io, file);
        else await say(io, 'This folder has no files yet, so there is nothing to read. ');
      },
      async () => {
        left = await editStep(io, TOUR_FILE, 'edit');
      },
      async () => {
        await runStep(io, TOUR_COMMAND);
      },
    ],
  );
  // The tour writes into the person's folder: say which file it left there.
  const leftover = left
    ? `I left ${join(io.cwd, TOUR_FILE)} behind (the edit step wrote it); delete it when you are done. `
    : '';
  await say(
    io,
    `\nThat was the tour. ${leftover}Next, try \`slow\` and cancel it mid-turn, or \`fail\` to see an error.\n`,
  );
}

/** Runs the script the prompt asks for; returns the stop reason or throws (fail / cancel). */
export async function runScript(io: TurnIo, prompt: acp.ContentBlock[]): Promise<acp.StopReason> {
  const p = summarize(prompt);
  const m = /^\s*\/?([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(p.text);
  const keyword = m?.[1]?.toLowerCase() ?? '';
  const rest = (m?.[2] ?? '').trim();
  switch (keyword) {
    case 'help':
      await say(io, `I am the Talaria demo agent (offline, scripted).\n\n${KEYWORDS_HELP}\n`);
      return 'end_turn';
    case 'read': {
      const { file } = splitFileArg(rest);
      const text = await readStep(io, file);
      await say(
        io,
        text === null
          ? `I could not read ${file || 'that'}; see the tool call.\n`
          : `I read ${file}: ${plural(lineCount(text), 'line')}.\n`,
      );
      return 'end_turn';
    }
    case 'edit':
    case 'write': {
      const { file, tail } = splitFileArg(rest);
      const done = await editStep(io, file, keyword, keyword === 'write' && tail ? `${tail}\n` : undefined);
      await say(
        io,
        done
          ? `Done: ${file} was ${keyword === 'edit' ? 'edited' : 'written'} by the demo agent.\n`
          : `${file || 'The file'} was not changed.\n`,
      );
      return 'end_turn';
    }
    case 'run': {
      const ok = await runStep(io, rest);
      await say(io, ok ? 'The command finished successfully.\n' : 'The command did not succeed; see the tool call.\n');
      return 'end_turn';
    }
    case 'plan':
      await planScript(io);
      return 'end_turn';
    case 'slow':
    case 'long':
      await slowScript(io);
      return 'end_turn';
    case 'tour':
      await tourScript(io);
      return 'end_turn';
    case 'refuse':
      await say(
        io,
        'The Talaria demo agent refuses this prompt on purpose, because you asked it to. Nothing is broken.\n',
      );
      return 'refusal';
    case 'fail':
      await think(io, 'About to fail on purpose.');
      throw new acp.RequestError(RPC.INTERNAL_ERROR, 'Demo failure: the Talaria demo agent was asked to fail', {
        details:
          'The prompt started with "fail", so the demo agent answers with a JSON-RPC error on purpose. Nothing is broken.',
      });
    default:
      await defaultReply(io, p);
      return 'end_turn';
  }
}
