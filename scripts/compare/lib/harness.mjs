// Plumbing shared by scripts/benchmark-workloads.mjs and scripts/compare/run.mjs:
// a static server on a free 127.0.0.1 port, Debian's Chromium in a persistent
// context on a fresh temp profile (incognito contexts are far slower on OPFS),
// statistics, SHA-256 of runtime files, the environment record, JSON
// checkpointing, and installing scripts/compare's own npm packages when their
// lock file changed (a stamp of its hash, like scripts/setup does for the root).
//
// Nothing here measures anything by itself; the scripts decide what is timed.

import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile, rename, mkdir } from "node:fs/promises";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { spawnSync, execFileSync } from "node:child_process";
import { dirname, extname, join, normalize, relative, sep } from "node:path";
import { tmpdir, cpus, type as osType, release as osRelease, arch, totalmem } from "node:os";

export const ROOT = normalize(new URL("../../../", import.meta.url).pathname).replace(/\/$/, "");
export const COMPARE_DIR = join(ROOT, "scripts/compare");
export const CHROMIUM = "/usr/bin/chromium";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".data": "application/octet-stream",
};

/**
 * Serves `mounts` ({ "/prefix/": absolute dir }) on a free loopback port.
 * Resolves to { server, origin, close() }.
 */
export async function serve(mounts) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const mount = Object.keys(mounts).find((m) => url.pathname.startsWith(m));
    if (mount === undefined) {
      res.writeHead(404).end();
      return;
    }
    const base = mounts[mount];
    const file = normalize(join(base, decodeURIComponent(url.pathname.slice(mount.length))));
    if (!file.startsWith(base + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    server,
    origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

const cleanups = new Set();
let signalled = false;
let cleaning = null;

/** Closes every browser and removes every temp directory this process made (idempotent). */
export function cleanupAll() {
  cleaning ??= (async () => {
    for (const fn of [...cleanups]) await fn().catch(() => undefined);
  })();
  return cleaning;
}

/** True once SIGINT or SIGTERM arrived: the scripts stop instead of recording failures. */
export const interrupted = () => signalled;

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    if (signalled) return;
    signalled = true;
    console.error(`interrupted (${sig}): closing the browser and removing temp files`);
    await cleanupAll();
    process.exit(130);
  });
}

/**
 * Headless Debian Chromium, persistent context on a fresh temp profile.
 * `jsFlags` (V8 flags, e.g. "--no-liftoff") is for diagnostics only.
 * Resolves to { context, close() }.
 */
export async function launchBrowser(label, jsFlags = null) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup`);
  const { chromium } = await import("playwright-core");
  const profile = await mkdtemp(join(tmpdir(), `tinyjoin-${label}-`));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
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
      ...(jsFlags ? [`--js-flags=${jsFlags}`] : []),
    ],
  });
  // One promise for the whole teardown, so every caller (and cleanupAll) waits for it to finish.
  let closing = null;
  const close = () => {
    closing ??= (async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    })();
    return closing;
  };
  cleanups.add(close);
  return { context, profile, close };
}

/** Opens a page at `url`, waits until `window.benchReady`, forwards page errors to the console. */
export async function openPage(context, url, log = () => undefined) {
  const page = await context.newPage();
  page.on("pageerror", (e) => log(`[page error] ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") log(`[console] ${m.text()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  return page;
}

/**
 * One round in a fresh module Worker started from `page`: posts `msg` to a
 * new Worker of `url`, resolves with its first answer (an answer with an
 * `error` field rejects) and terminates the Worker.
 */
export function inFreshWorker(page, url, msg) {
  return page.evaluate(
    ([u, m]) =>
      new Promise((resolve, reject) => {
        const w = new Worker(u, { type: "module" });
        w.onmessage = (ev) => {
          w.terminate();
          if (ev.data && ev.data.error) reject(new Error(ev.data.error));
          else resolve(ev.data);
        };
        w.onerror = (ev) => reject(new Error(ev.message));
        w.postMessage(m);
      }),
    [url, msg],
  );
}

/** min / median / p90 / max (nearest-rank percentiles) of a list of numbers, rounded to 0.001 ms. */
export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return { n: 0 };
  const rank = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  const r = (x) => Math.round(x * 1000) / 1000;
  const median = s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, min: r(s[0]), median: r(median), p90: r(rank(0.9)), max: r(s[s.length - 1]) };
}

export function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Byte length and SHA-256 of every file under `dir` (relative paths, sorted). */
export function fileHashes(dir, filter = () => true) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (filter(p)) {
        const bytes = readFileSync(p);
        out[relative(ROOT, p)] = { bytes: bytes.length, sha256: sha256(bytes) };
      }
    }
  };
  walk(dir);
  return out;
}

const isRuntimeFile = (p) => p.endsWith(".js") || p.endsWith(".wasm");

/**
 * A private snapshot of the packaged client (client-ts/package.json and
 * dist/), so a rebuild of client-ts/dist during a run cannot mix two builds.
 * Waits until dist/ is quiet (unchanged across a second) before copying.
 * Resolves to { dir, name, version, files } where files are the byte length
 * and SHA-256 of every runtime file (.js, .wasm), keyed as client-ts/dist/...
 */
export async function snapshotTinyjoin() {
  const dist = join(ROOT, "client-ts/dist");
  if (!existsSync(join(dist, "wasm/tinyjoin_worker_bg.wasm")) || !existsSync(join(dist, "worker.js"))) {
    throw new Error("TinyJoin's package is not built (client-ts/dist is missing files): run scripts/setup, then scripts/build-wasm");
  }
  for (let attempt = 0; attempt < 120; attempt++) {
    const before = JSON.stringify(fileHashes(dist, isRuntimeFile));
    await new Promise((r) => setTimeout(r, 1000));
    if (JSON.stringify(fileHashes(dist, isRuntimeFile)) !== before) continue;
    const dir = await mkdtemp(join(tmpdir(), "tinyjoin-pkg-"));
    await cp(join(ROOT, "client-ts/package.json"), join(dir, "package.json"));
    await cp(dist, join(dir, "dist"), { recursive: true });
    const files = {};
    for (const [k, v] of Object.entries(fileHashes(join(dir, "dist"), isRuntimeFile))) files[k.replace(/^.*?\/dist\//, "client-ts/dist/")] = v;
    if (JSON.stringify(Object.values(files)) !== JSON.stringify(Object.values(JSON.parse(before)))) {
      await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      continue;
    }
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    let removing = null;
    const remove = () => (removing ??= rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
    cleanups.add(remove);
    return { dir, name: pkg.name, version: pkg.version, files, remove };
  }
  throw new Error("client-ts/dist kept changing for two minutes (a build in progress?)");
}

function gitHead() {
  try {
    const head = execFileSync("git", ["-C", ROOT, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    // Uncommitted changes to what the runtime or the benchmark is built from (others may be editing).
    const changed = execFileSync("git", ["-C", ROOT, "status", "--porcelain", "--", "client-ts/src", "worker", "engine/src", "engine/Cargo.toml", "Cargo.lock", "scripts/compare", "scripts/benchmark-workloads.mjs"], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => l.slice(3));
    return { commit: head, dirty: changed.length > 0, uncommitted: changed };
  } catch {
    return { commit: null, dirty: null, uncommitted: null };
  }
}

/** What the numbers were measured on. `page` gives the browser's own view. */
export async function environment(page) {
  const browser = await page.evaluate(() => ({ userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency, deviceMemory: navigator.deviceMemory ?? null }));
  let chromiumVersion = null;
  try {
    chromiumVersion = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    chromiumVersion = null;
  }
  const cpuList = cpus();
  return {
    browser: { executable: CHROMIUM, version: chromiumVersion, ...browser },
    cpu: { count: cpuList.length, model: cpuList[0]?.model ?? null },
    os: { type: osType(), release: osRelease(), arch: arch(), totalMemBytes: totalmem() },
    node: process.version,
    git: gitHead(),
  };
}

/** Environment fields that must match for --resume (not timestamps or git state). */
export function environmentKey(env) {
  return JSON.stringify({ browser: env.browser.version, ua: env.browser.userAgent, cpus: env.cpu.count, model: env.cpu.model, os: [env.os.type, env.os.release, env.os.arch] });
}

/** Writes JSON atomically (temp file + rename), creating the directory. */
export async function writeJson(path, value) {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + "\n");
  await rename(tmp, path);
}

/**
 * Installs scripts/compare's npm packages (`npm ci`) when node_modules is
 * missing or the lock file changed since the last install.
 */
export function ensureCompareDeps(log = console.log) {
  const lock = join(COMPARE_DIR, "package-lock.json");
  const stamp = join(COMPARE_DIR, "node_modules/.tinyjoin-compare-stamp");
  const want = sha256(readFileSync(lock));
  if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === want) return;
  log("installing scripts/compare npm packages (npm ci)");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: COMPARE_DIR, stdio: "inherit" });
  if (r.status !== 0) throw new Error("npm ci in scripts/compare failed");
  writeFileSync(stamp, want + "\n");
}

/** The installed version of an npm package under scripts/compare. */
export function compareDepVersion(name) {
  return JSON.parse(readFileSync(join(COMPARE_DIR, "node_modules", name, "package.json"), "utf8")).version;
}

/** Rejects with a clear message when `promise` takes longer than `ms`. */
export function withTimeout(promise, ms, what) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

/** Arguments: positional list and --flags (with optional =value). */
export function parseArgs(argv, known) {
  const flags = {};
  const positional = [];
  for (const a of argv) {
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const k = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const v = eq < 0 ? undefined : a.slice(eq + 1);
      if (!known.includes(k)) throw new Error(`unknown option --${k} (known: ${known.map((x) => "--" + x).join(", ")})`);
      flags[k] = v ?? true;
    } else positional.push(a);
  }
  return { flags, positional };
}
