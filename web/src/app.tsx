import { useEffect, useState } from 'react';
import { connect, describeError, forgetToken, ServerError, takeToken } from './api/server.js';
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
    const token = takeToken();
    if (!token) {
      setBoot({ kind: 'no-token' });
      return;
    }
    const client = connect();
    let store: AppStore | undefined;
    let live = true;
    client.api
      .me()
      .then(async (me) => {
        if (!live) return;
        store = new AppStore(client, me.role, me.label);
        await store.refresh();
        if (live) setBoot({ kind: 'ready', store });
      })
      .catch((e: unknown) => {
        if (!live) return;
        if (e instanceof ServerError && e.status === 401) {
          forgetToken();
          setBoot({ kind: 'bad-token', message: e.message });
        } else setBoot({ kind: 'down', message: describeError(e).message });
      });
    return () => {
      live = false;
      store?.close();
    };
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
