/**
 * The page's one markdown processor (web/src/entries/md-render.ts) renders what react-markdown
 * rendered: GFM, raw HTML as text, unsafe URLs dropped, components applied; and it is the same
 * processor for every call (no per-render setup), also when many texts are rendered in turn.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../web/src/entries/md-render.js';

const components: Components = {
  a: ({ href, children }) => createElement('a', { href, target: '_blank' }, children),
};
const ours = (t: string) => renderToStaticMarkup(renderMarkdown(t, components));
const theirs = (t: string) =>
  renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkGfm], components }, t));

const SAMPLES = [
  '# Title\n\nSome **bold** and `code` and ~~gone~~.',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '- [x] done\n- [ ] open',
  '[click](javascript:alert(1)) and [ok](https://example.com/x?y=1) and <https://auto.link>',
  'raw <b>html</b> <script>alert(1)</script> stays text',
  '```ts\nconst x = 1;\n```',
  'a footnote[^1]\n\n[^1]: the note',
  '- **output:** ok\n  - nested `x`',
];

describe('web: markdown through one processor', () => {
  it('renders every sample exactly as react-markdown with remark-gfm does', () => {
    for (const t of SAMPLES) expect(ours(t), t).toBe(theirs(t));
  });

  it('drops javascript: URLs and shows raw HTML as text', () => {
    const html = ours(SAMPLES[3]! + '\n\n' + SAMPLES[4]!);
    expect(html).not.toMatch(/href="javascript:/);
    expect(html).toContain('href="https://example.com/x?y=1"');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps no state between texts (a definition in one is not seen by the next)', () => {
    expect(ours('[x]: https://a.example\n\nsee [x]')).toContain('href="https://a.example"');
    expect(ours('see [x]')).toBe('<p>see [x]</p>');
  });
});
