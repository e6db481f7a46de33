// Per-call cost of the in-worker API (tinyjoin/worker): a small timing
// harness, a tool and not a test (the machine is shared and noisy). Serves
// client-ts/dist and worker.js on 127.0.0.1, runs the worker in headless
// Debian Chromium on OPFS, and prints microseconds per call (median of 7
// rounds of N calls) for: a point lookup by prepared statement, a prepared
// `SELECT ?` with a short text (what every prepared run pays), the lookup by
// SQL text, a single-row INSERT inside a transaction (prepared and by SQL
// text), a durable single-row autocommit INSERT (N/10 per round: one OPFS
// flush each; two on a database opened with commit: "two-flush", none
// with commit: "deferred"), a 25-insert transaction and the comparison's 25-operation mixed
// transaction with their commits, the mixed transaction's three statements
// alone (insert, update and delete on a table with a UNIQUE title, warm), and
// SELECT 1. Needs scripts/build-wasm.
//
// Usage: node scripts/inworker-timing/run.mjs [--n=2000] [--pkg=DIR]
// (--pkg: a directory holding another build's `dist/`, in place of
// client-ts, for comparing two builds run after run.)
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { tmpdir } from "node:os";
import { chromium } from "playwright-core";

const ROOT = new URL("../../", import.meta.url).pathname;
const pkg = (process.argv.find((a) => a.startsWith("--pkg=")) ?? `--pkg=${join(ROOT, "client-ts")}`).slice(6).replace(/\/$/, "");
const MOUNTS = { "/pkg/": pkg, "/h/": join(ROOT, "scripts/inworker-timing") };
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm" };
const n = Number((process.argv.find((a) => a.startsWith("--n=")) ?? "--n=2000").slice(4));

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const mount = Object.keys(MOUNTS).find((m) => url.pathname.startsWith(m));
  if (mount === undefined) return res.writeHead(404).end();
  const file = normalize(join(MOUNTS[mount], decodeURIComponent(url.pathname.slice(mount.length))));
  if (!file.startsWith(MOUNTS[mount] + sep) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
  res.end(await readFile(file));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}`;
const dir = await mkdtemp(join(tmpdir(), "tinyjoin-timing-"));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await context.newPage();
  await page.goto(`${origin}/h/page.html`);
  const r = await page.evaluate(
    (n) =>
      new Promise((resolve) => {
        const w = new Worker("/h/worker.js", { type: "module" });
        w.onmessage = (ev) => resolve(ev.data);
        w.onerror = (ev) => resolve({ error: ev.message });
        w.postMessage({ n });
      }),
    n,
  );
  if (r.error) throw new Error(r.error);
  console.log(`in-worker API, OPFS, ${n} calls per round, median of ${r.rounds} rounds (microseconds per call):`);
  for (const [k, v] of Object.entries(r.results)) console.log(`  ${k.padEnd(44)} ${typeof v === "number" ? v.toFixed(1) : v}`);
} finally {
  await context.close();
  server.close();
  await rm(dir, { recursive: true, force: true });
}
