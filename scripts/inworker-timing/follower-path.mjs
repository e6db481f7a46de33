// What a statement from a follower tab costs (its requests and the owner's
// answers go over the BroadcastChannel, through the browser's own process),
// with `pollMs` 0 and 1 in turn: a diagnostic tool, not a test. Each
// setting opens a fresh database in two fresh tabs (an owner, then a
// follower); the follower runs rounds of N `SELECT 1` and one transaction of
// N prepared INSERTs. Prints µs per statement (median and range over the
// rounds). It showed that polling for the channel's traffic made a
// follower slower (client-ts/src/poll.ts).
//
// Usage: node scripts/inworker-timing/follower-path.mjs [--n=500] [--rounds=5] [--order=0,1,1,0,...]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, launchBrowser, openPage, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["n", "rounds", "order"]);
const N = Number(flags.n ?? 500);
const ROUNDS = Number(flags.rounds ?? 5);
// The settings in turn, balanced (a later setting in a browser has run
// slower than an earlier one in some runs, whichever it was).
const ORDER = String(flags.order ?? "0,1,1,0,0,1,1,0").split(",").map(Number);
const PAGE = `<!doctype html><script type="module">
const tj = await import("/pkg/dist/index.js");
window.openDb = async (name, pollMs) => { window.db = await tj.open(name, { pollMs }); return window.db.role; };
window.round = async (n) => {
  const out = {};
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await db.query("SELECT 1");
  out.select1 = ((performance.now() - t0) * 1000) / n;
  await db.exec("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v TEXT)");
  const ins = await db.prepare("INSERT INTO t(v) VALUES (?)");
  t0 = performance.now();
  await db.transaction(async (tx) => { for (let i = 0; i < n; i++) await tx.runPrepared(ins, ["x" + i]); });
  out.insertTx = ((performance.now() - t0) * 1000) / n;
  return out;
};
window.benchReady = true;
</script>`;
const dir = await mkdtemp(join(tmpdir(), "tinyjoin-follower-path-"));
await writeFile(join(dir, "index.html"), PAGE);
const server = await serve({ "/pkg/": join(ROOT, "client-ts"), "/h/": dir });
const browser = await launchBrowser("follower-path");
try {
  for (const pollMs of ORDER) {
    const name = `follower-path-${Date.now()}-${pollMs}`;
    const owner = await openPage(browser.context, `${server.origin}/h/index.html`, console.error);
    const follower = await openPage(browser.context, `${server.origin}/h/index.html`, console.error);
    const r1 = await owner.evaluate(([n, p]) => window.openDb(n, p), [name, pollMs]);
    const r2 = await follower.evaluate(([n, p]) => window.openDb(n, p), [name, pollMs]);
    if (r1 !== "owner" || r2 !== "follower") throw new Error(`the tabs opened as ${r1} and ${r2}, not owner and follower`);
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await follower.evaluate((n) => window.round(n), N));
    for (const key of ["select1", "insertTx"]) {
      const s = stats(rounds.map((x) => x[key]));
      console.log(`pollMs ${pollMs} ${key.padEnd(9)} ${s.median.toFixed(1)} µs (${s.min.toFixed(1)}-${s.max.toFixed(1)})`);
    }
    await follower.close();
    await owner.close();
  }
} finally {
  await browser.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
