import { memo, useRef } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CodeBlock } from './code-block.js';
import { blockSplitter } from './blocks.js';

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

const Block = memo(function Block({ text, cont }: { text: string; cont: boolean }) {
  return (
    <div className={cont ? 'md-block md-cont' : 'md-block'}>
      <Markdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </Markdown>
    </div>
  );
});

/**
 * A message as markdown, block by block: while it streams only the last block changes, so each
 * frame parses a few KB, not the whole message.
 */
export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  // One splitter per message: a streamed message is split again only from its last paragraph.
  const splitter = useRef<ReturnType<typeof blockSplitter>>(undefined);
  splitter.current ??= blockSplitter();
  const blocks = splitter.current(text);
  return (
    <div className="md">
      {blocks.map((b, i) => (
        <Block key={i} text={b.text} cont={b.cont} />
      ))}
    </div>
  );
});
