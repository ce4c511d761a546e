import { lazy, Suspense, type ComponentProps } from 'react';

/**
 * Parts most visits never show, loaded when first drawn (issue 37: the page's initial JS ≤ 250 kB
 * gzip): xterm for a terminal sign-in (82 kB gzip of the 278 kB the page loaded), the inspector,
 * the diff view. Highlighting loads on demand in code-block.tsx. One place for these splits.
 */
const Terminal = lazy(() => import('./components/sign-in-terminal.js').then((m) => ({ default: m.SignInTerminal })));
const Inspector = lazy(() => import('./pages/inspector-page.js').then((m) => ({ default: m.InspectorPage })));
const Diff = lazy(() => import('./entries/diff-view.js').then((m) => ({ default: m.DiffView })));

const loading = (what: string) => (
  <div className="lazy-loading muted" role="status">
    Loading {what}…
  </div>
);

export function SignInTerminal(props: ComponentProps<typeof Terminal>) {
  return (
    <Suspense fallback={loading('the terminal')}>
      <Terminal {...props} />
    </Suspense>
  );
}

export function InspectorPage(props: ComponentProps<typeof Inspector>) {
  return (
    <Suspense fallback={loading('the inspector')}>
      <Inspector {...props} />
    </Suspense>
  );
}

export function DiffView(props: ComponentProps<typeof Diff>) {
  return (
    <Suspense fallback={loading('the diff')}>
      <Diff {...props} />
    </Suspense>
  );
}
