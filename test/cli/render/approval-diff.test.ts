/**
 * An approval shows what it approves, from the recorded Hermes 0.18.2 frames: `edit-approval-1`
 * carries a diff with newText and no oldText (a new file) on its own id, while the thread shows
 * the real write call; a later approval sends a whole-file diff whose text does not change.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { approvalDiff, type Ask } from '../../../src/cli/approve.js';
import { ChatRenderer } from '../../../src/cli/render/renderer.js';
import { createStyle } from '../../../src/cli/render/style.js';
import { hermesHooks } from '../../../src/providers/hermes/hooks.js';
import type { SessionEvent } from '../../../src/session/events.js';
import { replayWireLog } from '../../../src/session/replay.js';
import type { Entry } from '../../../src/thread/types.js';
import { parseFixture } from '../../../src/store/index.js';
import { FIXTURES } from '../helpers.js';

async function chat(file: string): Promise<{ lines: string[]; asks: { ask: Ask; diff: string[] }[] }> {
  const r = new ChatRenderer({ style: createStyle(false), live: false });
  const asks: { ask: Ask; diff: string[] }[] = [];
  // The thread as the events built it (entries by index, as of each event).
  const entries: Entry[] = [];
  await replayWireLog(
    parseFixture(readFileSync(join(FIXTURES, file), 'utf8'), () => undefined),
    {
      hooks: hermesHooks(),
      onEvent: (e: SessionEvent) => {
        r.handle(e);
        if (e.type === 'entry.added' || e.type === 'entry.updated')
          entries[e.index] = JSON.parse(JSON.stringify(e.entry)) as Entry;
        // What `talaria run` prints before its question, at the moment of the ask.
        if (e.type === 'permission.asked') asks.push({ ask: e, diff: approvalDiff(entries.filter(Boolean), e) });
      },
    },
  );
  return { lines: r.takeCommitted(), asks };
}

describe('approvals show what they approve (recorded Hermes frames)', () => {
  it('edit-approval-1 (a new file): the diff content is shown with the question, and once', async () => {
    const { lines } = await chat('main.ndjson');
    const q = lines.findIndex((l) => l.startsWith('? Permission needed: Approve edit: /workspace/out.txt'));
    expect(q).toBeGreaterThan(0);
    const before = lines.slice(Math.max(0, q - 6), q);
    expect(before).toEqual(
      expect.arrayContaining(['  --- /dev/null', '  +++ /workspace/out.txt', '  +written by fake model']),
    );
    expect(lines.filter((l) => l === '  +written by fake model')).toHaveLength(1); // not again when the call settles
    expect(lines).toContain('✓ [edit] write: /workspace/out.txt completed · allowed');
  });

  it('talaria run prints the same diff before its question', async () => {
    const { asks } = await chat('main.ndjson');
    const edit = asks.find((a) => a.ask.title === 'Approve edit: /workspace/out.txt');
    expect(edit?.diff).toEqual([
      '  --- /dev/null',
      '  +++ /workspace/out.txt',
      '  @@ -0,0 +1,1 @@',
      '  +written by fake model',
    ]);
  });

  it('a whole-file diff whose text does not change says so instead of showing bare headers', async () => {
    const { lines } = await chat('tools.ndjson');
    const i = lines.findIndex((l) => l === '  +++ /workspace/out.txt');
    expect(i).toBeGreaterThan(0);
    expect(lines[i + 1]).toBe('  (no change: its one line stays as it is)');
  });
});
