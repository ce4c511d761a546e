import { describe, expect, it } from 'vitest';
import { HumanRunOutput } from '../../src/cli/commands/run-human.js';
import { missedByPrinter } from '../../src/cli/commands/run-server.js';
import { createStyle } from '../../src/cli/render/style.js';
import type { CliIo } from '../../src/cli/io.js';
import type { SessionSnapshot } from '../../src/server/contract/index.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Entry } from '../../src/thread/types.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const stream = (into: string[]) => ({
    isTTY: false,
    write: (c: string | Uint8Array) => (into.push(String(c)), true),
  });
  return {
    cli: { stdout: stream(out), stderr: stream(err), stdin: process.stdin, env: {} } as unknown as CliIo,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

const msg = (id: string, text: string, turnId = 't2'): Entry =>
  ({ id, kind: 'assistant_message', text, blocks: [], turnId }) as Entry;
const call = (id: string, status: string): Entry =>
  ({
    id,
    kind: 'tool_call',
    toolCallId: `c-${id}`,
    title: `Read ${id}.txt`,
    toolKind: 'read',
    status,
    content: [],
    locations: [],
    turnId: 't2',
  }) as unknown as Entry;
const event = (type: 'entry.added' | 'entry.updated', index: number, entry: Entry, appended?: string): SessionEvent =>
  ({
    type,
    sessionId: 's',
    seq: 1,
    at: 0,
    index,
    entry,
    ...(appended !== undefined ? { appended } : {}),
  }) as unknown as SessionEvent;
const snapshot = (entries: Entry[]): SessionSnapshot =>
  ({ session: { id: 's' }, thread: { entries } }) as unknown as SessionSnapshot;

describe('talaria run on a server: a snapshot after a gap in the stream', () => {
  it("prints what the gap held of the run's turn, once, in order, and goes on from there", () => {
    const t = io();
    const h = new HumanRunOutput(t.cli, createStyle(false));
    h.begin();
    h.handle(event('entry.added', 1, msg('m1', 'Reading')));
    // The gap: the rest of m1, a tool call that settled, and the start of m2. An earlier turn's
    // message (t1) is in the snapshot too, and is not this run's.
    const entries = [
      msg('m0', 'an earlier answer', 't1'),
      msg('m1', 'Reading the files.'),
      call('e2', 'completed'),
      msg('m3', 'Both say'),
    ];
    for (const ev of missedByPrinter(snapshot(entries), 't2')) h.handle(ev);
    h.handle(event('entry.updated', 3, msg('m3', 'Both say hello.'), ' hello.'));
    // The same snapshot again (a second gap with nothing new) prints nothing twice.
    for (const ev of missedByPrinter(snapshot([...entries.slice(0, 3), msg('m3', 'Both say hello.')]), 't2'))
      h.handle(ev);
    h.finish();
    expect(t.stdout()).toBe('Reading the files.\n\nBoth say hello.\n');
    expect(t.stderr().match(/Read e2\.txt/g)).toHaveLength(1);
    expect(t.stdout()).not.toContain('earlier');
  });
});
