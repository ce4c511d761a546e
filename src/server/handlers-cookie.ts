/** The page's session cookie: traded for the link's token (signIn), cleared (signOut). */
import { deleteCookie, setCookie } from 'hono/cookie';
import type { HandlerMap } from './app.js';
import type { GuardConfig } from './guard.js';

export function cookieHandlers(guard: GuardConfig, secure: boolean): Partial<HandlerMap> {
  return {
    signIn: ({ identity, c }) => {
      const id = identity!;
      // The app checked the Bearer token before this runs; the cookie holds that same token.
      const token = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (token) setCookie(c, guard.cookie, token, { path: '/', httpOnly: true, sameSite: 'Strict', secure });
      return { role: id.role, tokenId: id.id, ...(id.label ? { label: id.label } : {}) };
    },
    signOut: ({ c }) => {
      deleteCookie(c, guard.cookie, { path: '/', httpOnly: true, sameSite: 'Strict', secure });
      return { ok: true };
    },
  };
}
