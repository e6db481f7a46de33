// What a statement from the page costs through TinyJoin's page client
// (`open()`: election, an owner Worker) against a bare message to a Worker
// that only answers, in the same page: a diagnostic tool, not a test.
//
// The comparison's page rows (README, "Measured performance") time the
// mixed transactions from the page; there TinyJoin's path cost about 45 µs
// per statement more than SQLite's harness's bare message, beyond each
// engine's work (derived from medians). This measures it directly: per round, in
// one page, N statements `SELECT 1` (engine work next to nothing) and N of
// the mixed transaction (`runPrepared` in a transaction, as the comparison
// does) through the client, N bare round trips to an echo Worker with the
// same message shape as the comparison's SQLite harness, and N of 100-byte
// Uint8Arrays transferred both ways (as the client and its owner send their
// encoded requests and replies). Prints µs per call (median and range over
// the rounds).
//
// Usage: node scripts/inworker-timing/page-path.mjs [--n=1000] [--rounds=7]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPARE_DIR, ROOT, launchBrowser, openPage, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["n", "rounds"]);
const N = Number(flags.n ?? 1000);
const ROUNDS = Number(flags.rounds ?? 7);

// Answers an object with an object; a Uint8Array with a Uint8Array of the
// same size, transferred both ways as TinyJoin's client and owner do.
const ECHO = `onmessage = (e) => {
  if (e.data instanceof Uint8Array) {
    const b = new Uint8Array(e.data.length);
    postMessage(b, [b.buffer]);
  } else postMessage({ id: e.data.id, result: 1 });
};
`;
const PAGE = `<!doctype html><script type="module">
import { mixedOps, payload64 } from "/c/common.js";
import { mixedSql } from "/c/workloads.js";
const tj = await import("/pkg/dist/index.js");
const c = await tj.open("page-path-" + Date.now());
const echo = new Worker("/h/echo.js");
let nextId = 1;
const rpc = (msg) => new Promise((resolve) => {
  const id = nextId++;
  echo.onmessage = (e) => { if (e.data.id === id) resolve(e.data.result); };
  echo.postMessage({ id, ...msg });
});
let round = 0;
window.round = async (n) => {
  round += 1;
  const out = {};
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await c.query("SELECT 1");
  out.select1 = ((performance.now() - t0) * 1000) / n;
  const q = mixedSql("pp" + round);
  await c.exec(q.create);
  const stmt = { insert: await c.prepare(q.insert), update: await c.prepare(q.update), delete: await c.prepare(q.delete) };
  await c.transaction(async (tx) => {
    for (let i = 1; i <= n; i++) await tx.runPrepared(stmt.insert, [i, "t" + i, payload64(i)]);
  });
  const ops = mixedOps(n, n);
  t0 = performance.now();
  await c.transaction(async (tx) => {
    for (const op of ops) await tx.runPrepared(stmt[op.kind], op.params);
  });
  out.mixed = ((performance.now() - t0) * 1000) / n;
  t0 = performance.now();
  for (const op of ops) await rpc({ op: "runInTx", args: { stmt: 1, params: op.params } });
  out.echo = ((performance.now() - t0) * 1000) / n;
  // The same round trips as bytes (a mixed statement's request is about 100).
  t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((resolve) => {
      echo.onmessage = () => resolve();
      const b = new Uint8Array(100);
      echo.postMessage(b, [b.buffer]);
    });
  }
  out.echoBytes = ((performance.now() - t0) * 1000) / n;
  return out;
};
window.benchReady = true;
</script>`;

const dir = await mkdtemp(join(tmpdir(), "tinyjoin-page-path-"));
await writeFile(join(dir, "index.html"), PAGE);
await writeFile(join(dir, "echo.js"), ECHO);
const server = await serve({ "/pkg/": join(ROOT, "client-ts"), "/c/": join(COMPARE_DIR, "web"), "/h/": dir });
const browser = await launchBrowser("page-path");
try {
  const page = await openPage(browser.context, `${server.origin}/h/index.html`, console.error);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await page.evaluate((n) => window.round(n), N));
  for (const key of ["select1", "mixed", "echo", "echoBytes"]) {
    const s = stats(rounds.map((x) => x[key]));
    console.log(`${key.padEnd(10)} ${s.median.toFixed(1)} µs per call (${s.min.toFixed(1)}-${s.max.toFixed(1)}, ${ROUNDS} rounds of ${N})`);
  }
} finally {
  await browser.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
