// What the shape of a durable commit costs on OPFS: a diagnostic tool, not a
// test (the machine is shared and noisy). In a fresh headless Chromium, one
// Worker writes commits of several shapes (one page; four adjacent pages;
// data pages in one or two runs plus a superblock page elsewhere), each
// followed by one flush, on a sync access handle, rounds interleaved, and
// prints microseconds per commit (median, min and max of the rounds). It
// tells what one device write per commit saves against two or three.
//
// --no-flush: the same writes without the flush (a deferred commit's cost).
//
// Usage: node scripts/inworker-timing/write-shapes.mjs [--n=200] [--rounds=7] [--no-flush]
import { join } from "node:path";
import { ROOT, launchBrowser, parseArgs, serve, stats } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["n", "rounds", "no-flush"]);
const n = Number(flags.n ?? 200);
const rounds = Number(flags.rounds ?? 7);
const flush = !flags["no-flush"];

const server = await serve({ "/h/": join(ROOT, "scripts/inworker-timing") });
const browser = await launchBrowser("write-shapes");
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin}/h/page.html`);
  const r = await page.evaluate(
    (args) =>
      new Promise((resolve) => {
        const w = new Worker("/h/write-shapes-worker.js");
        w.onmessage = (ev) => resolve(ev.data);
        w.onerror = (ev) => resolve({ ok: false, error: ev.message });
        w.postMessage(args);
      }),
    { n, rounds, flush },
  );
  if (!r.ok) throw new Error(r.error);
  console.log(`OPFS commits of each shape, ${flush ? "each followed by one flush" : "no flush"}: ${n} per round, ${rounds} rounds, µs per commit, median (min-max)`);
  for (const [name, samples] of Object.entries(r.samples)) {
    const s = stats(samples);
    console.log(`  ${name.padEnd(42)} ${s.median.toFixed(0)} (${s.min.toFixed(0)}-${s.max.toFixed(0)})`);
  }
} finally {
  await browser.close();
  await server.close();
}
