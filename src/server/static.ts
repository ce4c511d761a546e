/**
 * `/`: the built web UI from dist/web, or a placeholder page that names the missing build. Any
 * path without a file falls back to index.html (the UI routes on the client).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Context } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

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

export function staticHandler(webRoot: string) {
  return (c: Context): Response => {
    const index = join(webRoot, 'index.html');
    if (!existsSync(index)) return c.html(placeholderPage(webRoot), 200);
    let rel: string;
    try {
      rel = decodeURIComponent(c.req.path);
    } catch {
      return c.text('bad path', 400);
    }
    const file = normalize(join(webRoot, rel));
    // Never outside dist/web.
    const inside = file === webRoot || file.startsWith(webRoot.endsWith(sep) ? webRoot : webRoot + sep);
    const target = inside && existsSync(file) && statSync(file).isFile() ? file : index;
    const type = TYPES[extname(target)] ?? 'application/octet-stream';
    const cache = target === index ? 'no-cache' : 'public, max-age=31536000, immutable';
    return new Response(readFileSync(target), { headers: { 'content-type': type, 'cache-control': cache } });
  };
}
