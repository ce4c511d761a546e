/**
 * Markdown for the terminal (marked + marked-terminal): the chat renders an answer block by
 * block as it streams: a finished block (paragraph, list, code fence, table…) is rendered and
 * committed; the block still arriving stays raw in the live region until it is complete.
 * Loaded lazily (marked-terminal pulls in a highlighter): only the interactive chat needs it.
 */
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { stripAnsi } from './width.js';

export interface MarkdownRenderer {
  /** Splits streamed text into finished blocks (`done`) and the block still arriving (`rest`). */
  split(text: string): { done: string; rest: string };
  /** Rendered lines of finished Markdown, wrapped at `width` columns. */
  render(markdown: string, width: number): string[];
}

export function createMarkdown(o: { color: boolean }): MarkdownRenderer {
  const lexer = new Marked();
  const byWidth = new Map<number, Marked>();
  const forWidth = (width: number) => {
    let m = byWidth.get(width);
    if (!m) {
      m = new Marked();
      m.use(markedTerminal({ width, reflowText: true, tab: 2, emoji: false }) as never);
      byWidth.set(width, m);
    }
    return m;
  };
  return {
    split(text) {
      const tokens = lexer.lexer(text);
      let end = tokens.length;
      while (end > 0 && tokens[end - 1]!.type === 'space') end--;
      // The last block may still grow (a paragraph, an open fence, a list): only those before it are done.
      let done = '';
      for (const t of tokens.slice(0, Math.max(0, end - 1))) done += t.raw;
      if (!text.startsWith(done)) return { done: '', rest: text };
      return { done, rest: text.slice(done.length) };
    },
    render(markdown, width) {
      let out = String(forWidth(Math.max(20, width)).parse(markdown, { async: false }));
      if (!o.color) out = stripAnsi(out);
      return out.replace(/\s+$/, '').split('\n');
    },
  };
}
