// Serves the playground (scripts/demo-page) and the built package on
// 127.0.0.1 and prints the URL. Port: $PORT, or a free one.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";

const ROOT = new URL("../", import.meta.url).pathname;
const MOUNTS = { "/pkg/": join(ROOT, "client-ts"), "/": join(ROOT, "scripts/demo-page") };
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const path = url.pathname === "/" ? "/index.html" : url.pathname;
  const mount = Object.keys(MOUNTS).find((m) => path.startsWith(m));
  const base = MOUNTS[mount];
  const file = normalize(join(base, decodeURIComponent(path.slice(mount.length))));
  if (!file.startsWith(base + sep) || !existsSync(file)) {
    res.writeHead(404).end("not found");
    return;
  }
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "content-security-policy": "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'",
    "cache-control": "no-store",
  });
  res.end(await readFile(file));
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`TinyJoin playground: http://127.0.0.1:${server.address().port}/  (open it in several tabs; Ctrl+C stops)`);
});
