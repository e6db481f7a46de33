// Browser tests of TinyJoin: Debian's Chromium driven by playwright-core,
// pages served by a small static server on 127.0.0.1 (a free port), one
// persistent context (incognito contexts are 15-150x slower on OPFS) whose
// pages are the tabs. Tests wait on events (page functions that resolve),
// never on sleeps. Prints one line per test and a closing
// "N passed, N failed"; exits 0 only if every test passed.
//
// Usage: node scripts/browser-tests/run.mjs [name-filter]
// Needs client-ts/dist built (scripts/build-wasm).

import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { tmpdir } from "node:os";
import { chromium } from "playwright-core";
import { tests } from "./tests.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
// Tests may add mounts (env.mount) for directories they build.
const MOUNTS = { "/pkg/": join(ROOT, "client-ts"), "/t/": join(ROOT, "scripts/browser-tests/pages") };
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
// Every response carries the restrictive policy the package must work under.
const CSP = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'";
const TEST_TIMEOUT_MS = 120_000;

function serve() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const mount = Object.keys(MOUNTS).find((m) => url.pathname.startsWith(m));
    if (mount === undefined) {
      res.writeHead(404).end();
      return;
    }
    const base = MOUNTS[mount];
    const file = normalize(join(base, decodeURIComponent(url.pathname.slice(mount.length))));
    if (!file.startsWith(base + sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "content-security-policy": CSP, "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function launch(userDataDir) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Main browser processes (no --type=) started with this user-data dir. */
function browserPids(userDataDir) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if (cmd.some((a) => a === `--user-data-dir=${userDataDir}`) && !cmd.some((a) => a.startsWith("--type="))) pids.push(Number(entry));
  }
  return pids;
}

function withTimeout(promise, ms, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

async function main() {
  if (!existsSync(join(ROOT, "client-ts/dist/wasm/tinyjoin_worker_bg.wasm"))) {
    console.error("client-ts/dist is not built: run scripts/build-wasm first");
    process.exit(2);
  }
  const filter = process.argv[2] ?? "";
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const userDataDir = await mkdtemp(join(tmpdir(), "tinyjoin-browser-"));
  let context = await launch(userDataDir);
  let passed = 0;
  let failed = 0;
  // Broken-invariant reports of the client (session.ts, checkState) fail the test that caused them.
  const invariantErrors = [];
  const watchConsole = (page) =>
    page.on("console", (m) => {
      if (m.type() === "error" && m.text().startsWith("tinyjoin:")) invariantErrors.push(m.text());
    });

  // What a test gets: tabs of the one context, and a way to restart the browser on the same profile.
  const env = {
    origin,
    root: ROOT,
    /** Serves `dir` at `/<prefix>/`. */
    mount(prefix, dir) {
      MOUNTS[`/${prefix}/`] = dir;
    },
    /** A tab on an arbitrary served path; resolves once `ready()` is true in it. */
    async page(path, ready) {
      const page = await context.newPage();
      watchConsole(page);
      page.on("pageerror", (e) => console.log(`    [page error] ${e.message}`));
      // Every URL the page and its Workers request, from the first one on.
      page.requestsSeen = [];
      context.on("request", (r) => page.requestsSeen.push(r.url()));
      await page.goto(`${origin}${path}`);
      await page.waitForFunction(ready);
      return page;
    },
    async tab() {
      const page = await context.newPage();
      watchConsole(page);
      page.on("pageerror", (e) => console.log(`    [page error] ${e.message}`));
      await page.goto(`${origin}/t/harness.html`);
      await page.waitForFunction(() => window.harnessReady === true);
      return page;
    },
    async reload(page) {
      await page.reload();
      await page.waitForFunction(() => window.harnessReady === true);
    },
    /** SIGKILLs the browser's main process (no unload, no cleanup) and relaunches on the same profile. */
    async killBrowser() {
      const closed = new Promise((resolve) => context.once("close", resolve));
      const pids = browserPids(userDataDir);
      if (pids.length === 0) throw new Error("no browser process found to kill");
      for (const pid of pids) process.kill(pid, "SIGKILL");
      await closed;
      context = await launch(userDataDir);
    },
    async restartBrowser() {
      await context.close();
      context = await launch(userDataDir);
    },
  };

  try {
    for (const t of tests) {
      if (!t.name.includes(filter)) continue;
      const started = Date.now();
      try {
        invariantErrors.length = 0;
        await withTimeout(t.run(env), TEST_TIMEOUT_MS, t.name);
        if (invariantErrors.length > 0) throw new Error(invariantErrors.join("\n"));
        passed++;
        console.log(`ok   ${t.name} (${Date.now() - started} ms)`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${t.name} (${Date.now() - started} ms): ${e && e.stack ? e.stack : e}`);
      } finally {
        for (const p of context.pages()) await p.close().catch(() => undefined);
      }
    }
  } finally {
    await context.close().catch(() => undefined);
    server.close();
    await rm(userDataDir, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  console.log("0 passed, 1 failed");
  process.exit(1);
});
