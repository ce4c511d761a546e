import { Fragment, memo, startTransition, useEffect, useReducer, useRef } from 'react';
import type { Components } from 'react-markdown';
import { renderMarkdown } from './md-render.js';
import { CodeBlock } from './code-block.js';
import { BlockStream, pieceSource, type Block as Cut } from './blocks.js';
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

const Block = memo(function Block({ text }: { text: string }) {
  return (
    <div className="md-block">{renderMarkdown(text, components)}</div>
  );
});

/** In a cut paragraph each piece's paragraph is a run of inline text: the pieces flow as one paragraph. */
const inline: Components = {
  ...components,
  p({ children }) {
    return <span className="md-piece">{children}</span>;
  },
};

/** A piece of a long paragraph, parsed on its own (only the last one re-parses while it grows). */
const Piece = memo(function Piece({ text, cont }: { text: string; cont: boolean }) {
  const src = pieceSource({ text, cont });
  return renderMarkdown(src, inline);
});

/**
 * Pieces in one flow: a paragraph's text is laid out as a whole, and Chromium lays out the whole
 * flow again when its last piece grows (a 190 KB paragraph cost 40-80 ms of layout a render; a
 * 14 KB flow still 15-27 ms of CPU a frame in a trace of the bench's streamed turn, the frame's
 * longest part). So a paragraph longer than RUN pieces (~4.8 KB, past what agents write in one
 * paragraph) goes on in a new flow: a new line, with no gap; below that it is drawn exactly as
 * the uncut paragraph.
 */
const RUN = 4;

/** New blocks a render of a streaming message parses at most (each is up to ~1.2 KB of markdown). */
const STEP = 4;

/**
 * Pieces of a paragraph cut at sentence ends (BlockStream) drawn as the one paragraph they are:
 * their text flows in one block (`.md-para`, styled as a paragraph), with the space at each cut
 * kept between them (text and copy stay whole). `cont`: the paragraph began in an earlier run;
 * `open`: it goes on in the next one.
 */
const Para = memo(
  function Para({ pieces, cont, open }: { pieces: readonly Cut[]; cont: boolean; open: boolean }) {
    return (
      <div className={cont ? 'md-block md-run' : 'md-block'}>
        <div className={open ? 'md-para md-open' : 'md-para'}>
          {pieces.map((b, i) => (
            <Fragment key={i}>
              {i > 0 || cont ? ' ' : null}
              <Piece text={b.text} cont={b.cont} />
            </Fragment>
          ))}
        </div>
      </div>
    );
  },
  // Its pieces come as a fresh slice each render: the same pieces (BlockStream keeps a finished
  // piece's object) are the same paragraph, so a finished run is not rendered again.
  (a, b) => a.cont === b.cont && a.open === b.open && a.pieces.length === b.pieces.length && a.pieces.every((p, i) => p === b.pieces[i]),
);

/**
 * A message as markdown, block by block: while it streams only the last block changes, so each
 * render parses about a KB, and reads only the chunks that arrived since the last one.
 */
export const MarkdownText = memo(function MarkdownText({ source }: { source: string | TextParts }) {
  const fed = useRef<Fed>(undefined);
  const all = feed(fed, source);
  // A burst of streamed text (the page fell behind the agent) is drawn over a few renders, STEP
  // new blocks each: a trace showed one render parsing ~15 new pieces, 36 ms of markdown.
  const shown = useRef(0);
  const [, more] = useReducer((x: number) => x + 1, 0);
  const n = typeof source === 'string' ? all.length : Math.min(all.length, shown.current + STEP);
  const blocks = n < all.length ? all.slice(0, n) : all;
  useEffect(() => {
    shown.current = n;
    if (n >= all.length) return;
    // The rest of the burst renders as a transition, in slices (a plain update from a timer
    // renders in one synchronous piece: the new blocks' markdown in one task).
    const t = setTimeout(() => startTransition(more), 0);
    return () => clearTimeout(t);
  });
  // A block and the pieces that continue it are one paragraph.
  const paras: Cut[][] = [];
  for (const b of blocks) {
    const last = paras.at(-1);
    if (b.cont && last) last.push(b);
    else paras.push([b]);
  }
  const out: React.ReactNode[] = [];
  paras.forEach((g, i) => {
    if (g.length === 1) out.push(<Block key={i} text={g[0]!.text} />);
    else for (let r = 0; r < g.length; r += RUN) out.push(<Para key={`${i}.${r}`} pieces={g.slice(r, r + RUN)} cont={r > 0} open={r + RUN < g.length} />);
  });
  return <div className="md">{out}</div>;
});

interface Fed {
  stream: BlockStream;
  /** The chunk list fed from, and how many of its chunks (or the whole text, for a string). */
  chunks?: readonly string[];
  count: number;
  text?: string;
}

function feed(ref: { current: Fed | undefined }, source: string | TextParts): Cut[] {
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
