import { useEffect, useState } from 'react';

/**
 * Highlighted code. highlight.js is loaded on first use (a separate chunk), so a page with no
 * code pays nothing; until it arrives the code shows plain, never hidden.
 */
type Hljs = typeof import('highlight.js').default;
let hljsPromise: Promise<Hljs> | undefined;
function loadHljs(): Promise<Hljs> {
  hljsPromise ??= import('highlight.js/lib/common').then((m) => m.default as Hljs);
  return hljsPromise;
}

export function CodeBlock({ code, lang }: { code: string; lang?: string | undefined }) {
  const [html, setHtml] = useState<string>();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    let live = true;
    // A streaming block changes often: highlight a little later, on the settled text.
    const t = setTimeout(() => {
      loadHljs()
        .then((h) => {
          if (!live) return;
          const r = lang && h.getLanguage(lang) ? h.highlight(code, { language: lang, ignoreIllegals: true }) : code.length < 20_000 ? h.highlightAuto(code) : undefined;
          setHtml(r?.value);
        })
        .catch(() => undefined);
    }, 60);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [code, lang]);
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="muted small">{lang ?? 'code'}</span>
        <button
          type="button"
          className="link-btn small"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre>
        {html !== undefined ? <code className={`hljs language-${lang ?? 'auto'}`} dangerouslySetInnerHTML={{ __html: html }} /> : <code>{code}</code>}
      </pre>
    </div>
  );
}
