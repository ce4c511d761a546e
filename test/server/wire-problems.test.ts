/** The wire log route carries the wire checker's verdict per frame (`problem`), across pages. */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/server/contract/index.js';
import { serve } from './helpers.js';
import { badFrameFixture } from './wire-fixtures.js';

describe('wire log: schema problems', () => {
  it('marks the frame that failed the ACP schema, and judges a response by its request on an earlier page', async () => {
    const s = await serve();
    const { session } = await s.client.api.importSession({
      body: { text: badFrameFixture(s.p.userHome), provider: 'demo', cwd: s.p.userHome },
    });
    // Two pages: the prompt's response (seq 8) is judged against its request on page one (seq 5).
    const first = await s.client.api.wireLog({ params: { id: session.id }, query: { limit: 6 } });
    const second = await s.client.api.wireLog({ params: { id: session.id }, query: { after: first.next! } });
    for (const page of [first, second]) ROUTES.wireLog.response.parse(page);
    const frames = [...first.frames, ...second.frames];
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const bad = frames.filter((f) => f.problem !== undefined);
    expect(bad.map((f) => f.seq)).toEqual([6]);
    expect(bad[0]!.problem).toMatch(/^\/params\/update\/content/);
    expect(bad[0]!.problem).toContain('txt');
  });
});
