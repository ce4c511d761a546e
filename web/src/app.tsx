import { useEffect, useState } from 'react';
import { describeError, signIn } from './api/server.js';
import { AppStore } from './state/app-store.js';
import { TokenPage } from './pages/token-page.js';
import { Shell } from './shell.js';

type Boot =
  | { kind: 'loading' }
  | { kind: 'no-token' }
  | { kind: 'bad-token'; message: string }
  | { kind: 'down'; message: string }
  | { kind: 'ready'; store: AppStore };

/** Finds the token, asks the server who it is, then opens the shell (or says what is wrong). */
export function App() {
  const [boot, setBoot] = useState<Boot>({ kind: 'loading' });
  useEffect(() => {
    let store: AppStore | undefined;
    let live = true;
    signIn()
      .then(async (r) => {
        if (!live) return;
        if ('refused' in r) {
          setBoot(r.refused === 'bad-token' ? { kind: 'bad-token', message: r.message ?? '' } : { kind: 'no-token' });
          return;
        }
        store = new AppStore(r.client, r.me.role, r.me.label);
        await store.refresh();
        if (live) setBoot({ kind: 'ready', store });
      })
      .catch((e: unknown) => {
        if (live) setBoot({ kind: 'down', message: describeError(e).message });
      });
    return () => {
      live = false;
      store?.close();
    };
  }, []);

  // A link pasted into an open tab changes only the fragment (no page load): sign in with it anew.
  useEffect(() => {
    const onHash = () => {
      if (/(^#|&)token=/.test(window.location.hash)) window.location.reload();
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  switch (boot.kind) {
    case 'loading':
      return <div className="boot" role="status">Connecting…</div>;
    case 'no-token':
    case 'bad-token':
    case 'down':
      return <TokenPage kind={boot.kind} message={'message' in boot ? boot.message : undefined} />;
    case 'ready':
      return <Shell store={boot.store} />;
  }
}
