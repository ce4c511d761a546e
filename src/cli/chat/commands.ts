/** The chat's slash commands that talk to the session or the agent: /help, /model, /mode, /sessions, /steer, /export. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { toMarkdown } from '../../thread/markdown.js';
import { selectorLines } from '../render/catalog-list.js';
import { sessionRows } from '../render/sessions.js';
import { visibleWidth } from '../render/width.js';
import type { ChatRenderer } from '../render/renderer.js';
import type { Style } from '../render/style.js';
import type { OpenedAgent } from '../runtime.js';
import { CHAT_COMMANDS, type BuiltinName } from './slash.js';

export interface CommandContext {
  opened: OpenedAgent;
  renderer: ChatRenderer;
  style: Style;
  cwd: string;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function runSlashCommand(
  name: Exclude<BuiltinName, 'quit' | 'cancel' | 'login'>,
  arg: string | undefined,
  c: CommandContext,
): Promise<void> {
  const { session, client } = c.opened;
  const note = (t: string, level?: 'info' | 'warning' | 'error') => c.renderer.note(t, level);
  switch (name) {
    case 'help': {
      // One column width for both tables, so the descriptions line up.
      const ours = CHAT_COMMANDS.map((x) => [`/${x.name}${x.args ? ` ${x.args}` : ''}`, x.help] as const);
      const theirs = c.renderer.commands.map((x) => [`/${x.name}`, x.description ?? ''] as const);
      const width = Math.max(...[...ours, ...theirs].map(([name]) => visibleWidth(name)));
      const row = ([name, help]: readonly [string, string]) => `  ${name.padEnd(width)}  ${help}`.trimEnd();
      const lines = ['Commands:', ...ours.map(row)];
      if (theirs.length > 0) {
        lines.push('Agent commands (sent to the agent; //NAME when a name is also ours):');
        lines.push(...theirs.map(row));
      }
      lines.push('Ctrl-C cancels the running turn; twice quits. Type while a turn runs to queue a prompt.');
      return note(lines.join('\n'));
    }
    case 'model':
    case 'mode': {
      if (arg === undefined) return c.renderer.styled(selectorLines(session.catalog[name], name, c.style));
      try {
        await (name === 'model' ? c.opened.setModel(arg) : c.opened.setMode(arg));
        note(`${name === 'model' ? 'Model' : 'Mode'}: ${session.catalog[name]?.currentId ?? arg}`);
      } catch (err) {
        note(`Could not switch ${name}: ${message(err)}`, 'error');
      }
      return;
    }
    case 'sessions': {
      try {
        const r = await client.sessions();
        if (r.sessions.length === 0) return note('No sessions in this workspace.');
        c.renderer.styled(sessionRows(r.sessions, c.style, c.opened.talariaId));
        if (r.agentProblem && client.capabilities.supportsSession('list'))
          note(`(the agent's own list is missing: ${r.agentProblem})`, 'warning');
        note('Continue one with: talaria chat --session ID');
      } catch (err) {
        note(`Could not list sessions: ${message(err)}`, 'error');
      }
      return;
    }
    case 'steer': {
      if (arg === undefined)
        return note(
          "Usage: /steer TEXT — steers the running turn now (the agent's own way, else cancel and resend).",
          'warning',
        );
      try {
        // The session says in the thread what happened (a `steered` notice), and runs the turn.
        const r = await session.steer(arg);
        if (r.how === 'prompt') note('Nothing was running: sent as a message.');
      } catch (err) {
        note(`Could not steer: ${message(err)}`, 'error');
      }
      return;
    }
    case 'export': {
      const path = resolve(c.cwd, arg ?? `talaria-${c.opened.talariaId.slice(0, 8)}.md`);
      try {
        writeFileSync(path, toMarkdown(session.thread));
        note(`Exported the thread to ${path}`);
      } catch (err) {
        note(`Could not export: ${message(err)}`, 'error');
      }
    }
  }
}
