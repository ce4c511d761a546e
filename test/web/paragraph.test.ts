import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SHOTS, shot } from './browser.js';
import { newSession, openPage, openProject, send, world, type World } from './helpers.js';

const CHUNKS = 120;

/**
 * Every line of the text under `sel`: its left and right edges and its top, relative to the
 * element (what a reader sees of a paragraph's shape: where lines break, the gaps between them).
 */
const LINES = `(el) => {
  const box = el.getBoundingClientRect();
  const tops = new Map();
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const q of r.getClientRects()) {
      if (q.width === 0) continue;
      const top = Math.round(q.top - box.top);
      const line = tops.get(top) ?? { top, left: Infinity, right: -Infinity };
      line.left = Math.min(line.left, Math.round(q.left - box.left));
      line.right = Math.max(line.right, Math.round(q.right - box.left));
      tops.set(top, line);
    }
  }
  return { height: Math.round(box.height), lines: [...tops.values()].sort((a, b) => a.top - b.top) };
}`;

/** Two PNGs compared in the page (a canvas decodes them): pixels whose colour differs by more than a little. */
const PIXELS = `async ([a, b]) => {
  const load = (s) => {
    const bin = atob(s);
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    return createImageBitmap(new Blob([u], { type: 'image/png' }));
  };
  const [x, y] = [await load(a), await load(b)];
  if (x.width !== y.width || x.height !== y.height) return { size: false, differing: x.width * x.height, total: x.width * x.height };
  const data = (img) => {
    const c = new OffscreenCanvas(img.width, img.height);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    return g.getImageData(0, 0, img.width, img.height).data;
  };
  const [p, q] = [data(x), data(y)];
  let differing = 0;
  for (let i = 0; i < p.length; i += 4) if (Math.abs(p[i] - q[i]) + Math.abs(p[i + 1] - q[i + 1]) + Math.abs(p[i + 2] - q[i + 2]) > 24) differing++;
  return { size: true, differing, total: x.width * x.height };
}`;

/** Puts the reference after the message: a node of its kind holding the text as one plain paragraph. */
const REFERENCE = `(el, text) => {
  const ref = el.cloneNode(false);
  ref.dataset.ref = 'uncut';
  const md = document.createElement('div');
  md.className = 'md';
  const block = document.createElement('div');
  block.className = 'md-block';
  const p = document.createElement('p');
  p.textContent = text;
  block.append(p);
  md.append(block);
  ref.append(md);
  el.after(ref);
}`;

interface Shape {
  height: number;
  lines: { top: number; left: number; right: number }[];
}

/** A paragraph longer than a block (BlockStream cuts it at sentence ends) looks like one paragraph. */
describe('web: a long streamed paragraph', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  beforeAll(async () => {
    w = await world({ env: { TALARIA_DEMO_SLOW_DELAY_MS: '0', TALARIA_DEMO_SLOW_CHUNKS: String(CHUNKS) } });
    // Tall enough for the whole message and its reference (blocks out of view are not laid out).
    page = await openPage(w, { viewport: { width: 1100, height: 2400 } });
    await openProject(page, w.served.project);
  }, 120_000);
  afterAll(async () => w?.stop());

  it('is drawn as the same paragraph uncut: the same lines, no gap where it was cut', async () => {
    const id = await newSession(page);
    await send(page, 'slow');
    // The turn is over once its last chunk is in and no turn runs: right after the send, the turn
    // may not have started yet (no turnId either), so the last chunk is what is waited for.
    const last = async () => {
      const { snapshot } = await w.api.api.snapshot({ params: { id } });
      if (snapshot.turnId !== undefined) return undefined;
      return snapshot.thread.entries.find((e) => JSON.stringify(e).includes(`Chunk ${CHUNKS} of ${CHUNKS}`)) as
        { id: string; text: string } | undefined;
    };
    await expect.poll(last, { timeout: 30_000 }).toBeDefined();
    const held = (await last())!;
    // One paragraph (no blank line) three times longer than a block: it is cut at least twice.
    expect(held.text.trim()).not.toContain('\n\n');
    expect(held.text.length).toBeGreaterThan(3 * 1200);
    const msg = page.locator(`[data-entry="${held.id}"] .msg.agent:not([data-ref])`);
    await expect.poll(() => msg.textContent(), { timeout: 20_000 }).toContain(`Chunk ${CHUNKS} of ${CHUNKS}`);

    // The reference: the same text as one plain paragraph, next to the message (same width, same styles).
    await msg.evaluate((el, [src, text]) => (0, eval)(src)(el, text) as unknown, [
      REFERENCE,
      held.text.trim(),
    ] as const);
    const ref = page.locator(`[data-entry="${held.id}"] [data-ref=uncut]`);
    await ref.waitFor();
    const cut = (await msg.locator('.md').evaluate((el, src) => (0, eval)(src)(el) as unknown, LINES)) as Shape;
    const whole = (await ref.locator('.md').evaluate((el, src) => (0, eval)(src)(el) as unknown, LINES)) as Shape;
    await shot(page, 'long-paragraph');
    const a = await msg.locator('.md').screenshot();
    const b = await ref.locator('.md').screenshot();
    writeFileSync(join(SHOTS, 'long-paragraph-cut.png'), a);
    writeFileSync(join(SHOTS, 'long-paragraph-uncut.png'), b);
    expect(cut.lines.length).toBeGreaterThan(5);
    expect(cut).toEqual(whole);
    // And the pixels: the same but for glyph edges where a piece's text starts at another subpixel
    // offset (a few columns at two cuts; a gap or a line broken early moves every line after it).
    const diff = (await page.evaluate(([src, x, y]) => (0, eval)(src)([x, y]) as unknown, [
      PIXELS,
      a.toString('base64'),
      b.toString('base64'),
    ] as const)) as {
      size: boolean;
      differing: number;
      total: number;
    };
    expect(diff.size).toBe(true);
    expect(diff.differing / diff.total).toBeLessThan(0.002);
    // The text (and a copy of it) is the paragraph's, with the space at each cut.
    expect((await msg.locator('.md').textContent())!.replace(/\s+/g, ' ').trim()).toBe(
      held.text.replace(/\s+/g, ' ').trim(),
    );
    expect(w.errors).toEqual([]);
  });
});
