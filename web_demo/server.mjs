// A static file server for the demo and the browser tests (node, no dependencies). Binds 127.0.0.1 only.
// CLI: node server.mjs ROOT [PORT]   (PORT 0 or omitted: 8080, or a free port if 8080 is taken)
// API: const { url, close } = await serve(root, port)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm',
  '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8', '.ts': 'text/plain; charset=utf-8',
};

export function serve(root, port = 0) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = path.join(base, rel);
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) file = path.join(file, 'index.html');
      fs.readFile(file, (err2, body) => {
        if (err2 && rel === '/favicon.ico') {
          res.writeHead(204).end(); // browsers ask for it unprompted; no 404 noise in the console
          return;
        }
        if (err2) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
          return;
        }
        res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
                             'cache-control': 'no-cache' });
        res.end(body);
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolve({ url: `http://127.0.0.1:${actual}/`, close: () => new Promise((r) => server.close(r)), server });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = process.argv[2];
  if (!root) {
    console.error('usage: node server.mjs ROOT [PORT]');
    process.exit(2);
  }
  const wanted = Number(process.argv[3] || 8080);
  let s;
  try {
    s = await serve(root, wanted);
  } catch {
    s = await serve(root, 0);
  }
  console.log(`zeta demo: serving ${path.resolve(root)}`);
  console.log(`open ${s.url}   (Ctrl-C to stop)`);
}
