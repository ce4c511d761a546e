import { describe, expect, it } from 'vitest';
import { HumanRunOutput } from '../../src/cli/commands/run-human.js';
import { createStyle } from '../../src/cli/render/style.js';
import type { CliIo } from '../../src/cli/io.js';
import type { SessionEvent } from '../../src/session/events.js';

/** stdout and stderr apart (what `> file` gets) and as one terminal shows them (in write order). */
function io(tty: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const screen: string[] = [];
  const stream = (into: string[]) => ({
    isTTY: tty,
    write(c: string | Uint8Array) {
      into.push(String(c));
      screen.push(String(c));
      return true;
    },
  });
  const cli = { stdout: stream(out), stderr: stream(err), stdin: process.stdin, env: {} } as unknown as CliIo;
  return { cli, stdout: () => out.join(''), stderr: () => err.join(''), screen: () => screen.join('') };
}

let seq = 0;
const text = (id: string, full: string, appended?: string): SessionEvent =>
  ({
    type: appended === undefined ? 'entry.added' : 'entry.updated',
    sessionId: 's',
    seq: ++seq,
    at: 0,
    index: 0,
    entry: { id, kind: 'assistant_message', text: full, blocks: [] },
    ...(appended !== undefined ? { appended } : {}),
  }) as SessionEvent;
const decided: SessionEvent = {
  type: 'permission.decided',
  sessionId: 's',
  seq: ++seq,
  at: 0,
  requestKey: 'r1',
  toolCallId: 't1',
  outcome: { outcome: 'selected', optionId: 'allow' },
  decidedBy: 'policy',
  reason: 'auto mode allows everything',
} as SessionEvent;

function play(tty: boolean) {
  const t = io(tty);
  const h = new HumanRunOutput(t.cli, createStyle(false));
  h.begin();
  h.handle(text('e1', 'Nothing to read.'));
  h.handle(decided);
  h.handle(decided);
  h.handle(text('e2', 'Edited.'));
  h.finish();
  return t;
}

describe('HumanRunOutput', () => {
  it('on one terminal, a permission line never lands on the line the answer left open', () => {
    const t = play(true);
    expect(t.screen()).toBe(
      'Nothing to read.\n  ↳ permission answered (policy): auto mode allows everything\n  ↳ permission answered (policy): auto mode allows everything\n\n\nEdited.\n',
    );
    for (const line of t.screen().split('\n'))
      expect(line.startsWith('Nothing') && line.includes('permission')).toBe(false);
  });

  it('the answer on stdout is the same whether or not the streams are terminals', () => {
    const tty = play(true);
    const piped = play(false);
    expect(tty.stdout()).toBe('Nothing to read.\n\nEdited.\n');
    expect(piped.stdout()).toBe(tty.stdout());
    // Only a terminal gets the newline that ends the open line, and only once.
    expect(piped.stderr()).toBe(tty.stderr().replace(/^\n/, ''));
    expect(tty.stderr().match(/^\n/g)?.length).toBe(1);
  });

  it('a line that ended with its newline gets no extra one', () => {
    const t = io(true);
    const h = new HumanRunOutput(t.cli, createStyle(false));
    h.begin();
    h.handle(text('e1', 'Done.\n'));
    h.handle(decided);
    expect(t.screen()).toBe('Done.\n  ↳ permission answered (policy): auto mode allows everything\n');
  });

  it("breakLine (other stderr writers: notes, logs, a question) ends the answer's open line once, on one terminal only", () => {
    for (const tty of [true, false]) {
      const t = io(tty);
      const h = new HumanRunOutput(t.cli, createStyle(false));
      h.begin();
      h.handle(text('e1', 'Half a'));
      const note = (s: string) => {
        h.breakLine();
        t.cli.stderr.write(`${s}\n`);
      };
      note('Cancelling the turn…');
      note('talaria run: cancelled');
      h.finish();
      expect(t.stderr()).toBe(`${tty ? '\n' : ''}Cancelling the turn…\ntalaria run: cancelled\n`);
      // A file or pipe gets the answer's last newline; a terminal shows no blank line after the notes.
      expect(t.stdout()).toBe(tty ? 'Half a' : 'Half a\n');
      if (tty) expect(t.screen()).toBe('Half a\nCancelling the turn…\ntalaria run: cancelled\n');
    }
  });
});
