// A static file server on a loopback port for page tests (tests/package, the console's
// sign-in): serves DIR with the right content types; `headers(path)` adds per-path
// headers (a Content-Security-Policy, for instance). Stopped by `stop()`.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.map': 'application/json', '.ts': 'text/plain; charset=utf-8',
};

export async function serveStatic(dir, { port = 0, headers = () => ({}) } = {}) {
  const root = normalize(dir);
  const srv = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403); return res.end(); }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store', ...headers(path) });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not found: ${path}`);
    }
  });
  await new Promise((r) => srv.listen(port, '127.0.0.1', r));
  const actual = srv.address().port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}`,
    stop: () => new Promise((r) => { srv.close(r); srv.closeAllConnections(); }),
  };
}
