/**
 * `/`: the built web UI from dist/web, or a placeholder page that names the missing build. Any
 * path without a file falls back to index.html (the UI routes on the client).
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, MiddlewareHandler } from 'hono';

/** The placeholder keeps the token flow working (fragment → the server's HttpOnly cookie) so the API can be tried. */
export function placeholderPage(webRoot: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Talaria</title>
<meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="font-family:system-ui;max-width:40em;margin:3em auto;padding:0 1em">
<h1>Talaria is running</h1>
<p>The web UI is not built: <code>${webRoot.replace(/[<>&]/g, '')}/index.html</code> is missing.
Build it with <code>npm run build</code>; the API is at <code>/api</code> and the live stream at <code>/ws</code>.</p>
<script>
var m = location.hash.match(/token=([^&]+)/);
if (m) { history.replaceState(null, '', location.pathname); fetch('/api/auth/cookie', { method: 'POST', headers: { authorization: 'Bearer ' + decodeURIComponent(m[1]) } }); }
</script></body></html>`;
}

/**
 * The files of dist/web streamed by Hono's serveStatic (no file read on the event loop), index.html
 * for any other path. Hashed assets are immutable; index.html is revalidated. Until the UI is built
 * (checked at most once a second, so a build made while serving is picked up) the placeholder.
 */
export function staticHandler(webRoot: string): MiddlewareHandler {
  const cache = (path: string, c: Context) =>
    c.header('Cache-Control', basename(path) === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable');
  // Made once the folder exists: serveStatic complains on the console about a missing root.
  let serve: { files: MiddlewareHandler; index: MiddlewareHandler } | undefined;
  let checkedAt = 0;
  return async (c, next) => {
    if (!serve && Date.now() - checkedAt > 1000) {
      checkedAt = Date.now();
      if (existsSync(join(webRoot, 'index.html'))) {
        serve = {
          files: serveStatic({ root: webRoot, onFound: cache }),
          index: serveStatic({ root: webRoot, path: 'index.html', onFound: cache }),
        };
      }
    }
    if (!serve) return c.html(placeholderPage(webRoot), 200);
    try {
      decodeURIComponent(c.req.path);
    } catch {
      return c.text('bad path', 400);
    }
    const { files, index } = serve;
    return files(c, async () => {
      await index(c, next);
    });
  };
}
