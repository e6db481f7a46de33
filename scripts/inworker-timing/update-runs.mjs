// How much of I8 (the comparison's UPDATE of an indexed column over 10,000
// rows) is its statement path's first call and how much its rows: a
// diagnostic tool, not a test (the machine is shared and noisy). Builds the
// index suite's table `a` (200,000 rows, indexes on b, (d, c) and lower(e))
// on OPFS once, then in each round a fresh Worker opens it, warms the paths
// the comparison has run before I8 (index lookups, committed inserts), and
// times I8's UPDATE five times on disjoint 10,000-row ranges, then I9's
// DELETE twice (on rows no other round touches: five rounds at most).
// Printed per run: median (min - max) over the rounds. Needs
// scripts/build-wasm.
//
// Usage: node scripts/inworker-timing/update-runs.mjs [--rounds=5] [--js-flags=...]
import { join } from "node:path";
import { ROOT, inFreshWorker, launchBrowser, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["rounds", "js-flags"]);
const ROUNDS = Math.min(5, Number(flags.rounds ?? 5));
const server = await serve({ "/h/": join(ROOT, "scripts/inworker-timing"), "/pkg/": join(ROOT, "client-ts") });
const browser = await launchBrowser("update-runs", flags["js-flags"] ?? null);
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin}/h/page.html`);
  const inWorker = (msg) => inFreshWorker(page, "/h/update-runs-worker.js", msg);
  await inWorker({ build: true });
  const results = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await inWorker({ round: r }));
  console.log(`${ROUNDS} fresh Workers; ms, median (min - max)`);
  for (const phase of Object.keys(results[0])) {
    const st = stats(results.map((x) => x[phase]));
    console.log(`  ${phase.padEnd(9)} ${st.median.toFixed(1)} (${st.min.toFixed(1)} - ${st.max.toFixed(1)})`);
  }
} finally {
  await browser.close();
  await server.close();
}
