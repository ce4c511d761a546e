import { memo, useRef } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CodeBlock } from './code-block.js';
import { BlockStream, type Block as Piece } from './blocks.js';
import type { TextParts } from '../state/stream-text.js';

/** Agent markdown: GFM (tables, task lists), fenced code highlighted; raw HTML is not rendered. */
const components: Components = {
  code({ className, children, ...rest }) {
    const m = /language-([\w+-]+)/.exec(className ?? '');
    const text = String(children ?? '');
    // Fenced blocks carry a language or a newline; inline code stays inline.
    if (m || text.includes('\n')) return <CodeBlock code={text.replace(/\n$/, '')} lang={m?.[1]} />;
    return (
      <code className="inline-code" {...rest}>
        {children}
      </code>
    );
  },
  pre({ children }) {
    return <>{children}</>;
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
};

/** `joined`: the next block continues this paragraph; the space at the cut is kept (text and copy stay whole). */
const Block = memo(function Block({ text, cont, joined }: { text: string; cont: boolean; joined: boolean }) {
  return (
    <div className={cont ? 'md-block md-cont' : 'md-block'}>
      <Markdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </Markdown>
      {joined ? ' ' : null}
    </div>
  );
});

/**
 * A message as markdown, block by block: while it streams only the last block changes, so each
 * render parses about a KB, and reads only the chunks that arrived since the last one.
 */
export const MarkdownText = memo(function MarkdownText({ source }: { source: string | TextParts }) {
  const fed = useRef<Fed>(undefined);
  const blocks = feed(fed, source);
  return (
    <div className="md">
      {blocks.map((b, i) => (
        <Block key={i} text={b.text} cont={b.cont} joined={blocks[i + 1]?.cont === true} />
      ))}
    </div>
  );
});

interface Fed {
  stream: BlockStream;
  /** The chunk list fed from, and how many of its chunks (or the whole text, for a string). */
  chunks?: readonly string[];
  count: number;
  text?: string;
}

function feed(ref: { current: Fed | undefined }, source: string | TextParts): Piece[] {
  let f = ref.current;
  if (typeof source === 'string') {
    if (f?.text === source) return f.stream.blocks();
    // A text that only grew is fed its new part; anything else starts again.
    if (f?.text !== undefined && source.length > f.text.length && source.startsWith(f.text)) f.stream.push(source.slice(f.text.length));
    else {
      f = { stream: new BlockStream(), count: 0 };
      f.stream.push(source);
    }
    f.text = source;
  } else {
    if (!f || f.chunks !== source.chunks || source.count < f.count) f = { stream: new BlockStream(), chunks: source.chunks, count: 0 };
    for (let i = f.count; i < source.count; i++) f.stream.push(source.chunks[i]!);
    f.count = source.count;
  }
  ref.current = f;
  return f.stream.blocks();
}
