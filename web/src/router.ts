import { useEffect, useState } from 'react';

/** Hash routes (the token is read from the fragment first, then the fragment is the route). */
export type Route =
  | { page: 'home' }
  | { page: 'session'; id: string }
  | { page: 'inspector'; id: string }
  | { page: 'settings' }
  | { page: 'readiness' }
  | { page: 'usage' }
  | { page: 'hermes' }
  | { page: 'hermes-session'; profile: string; id: string };

export function parseRoute(hash: string): Route {
  const parts = (hash.replace(/^#\/?/, '').split('?')[0] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 's' && parts[1]) return parts[2] === 'inspector' ? { page: 'inspector', id: parts[1] } : { page: 'session', id: parts[1] };
  if (parts[0] === 'settings') return { page: 'settings' };
  if (parts[0] === 'readiness') return { page: 'readiness' };
  if (parts[0] === 'usage') return { page: 'usage' };
  if (parts[0] === 'hermes') return parts[1] && parts[2] ? { page: 'hermes-session', profile: parts[1], id: parts[2] } : { page: 'hermes' };
  return { page: 'home' };
}

export const href = {
  home: '#/',
  session: (id: string) => `#/s/${encodeURIComponent(id)}`,
  inspector: (id: string) => `#/s/${encodeURIComponent(id)}/inspector`,
  settings: '#/settings',
  readiness: '#/readiness',
  usage: '#/usage',
  hermesList: '#/hermes',
  hermes: (profile: string, id: string) => `#/hermes/${encodeURIComponent(profile)}/${encodeURIComponent(id)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const on = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function go(to: string): void {
  window.location.hash = to;
}
