// Where the comparison's mixed transactions in a Worker spend their time:
// a diagnostic tool, not a test (the machine is shared and noisy). In each
// of N fresh headless Chromium instances, a fresh Worker opens a database
// on OPFS with tinyjoin/worker and runs the mixed transactions of 25, 100,
// 250 and 1,000 operations (mixedSql and mixedOps of scripts/compare/web) in turn;
// printed per transaction: total, staging split into the owner's wasm calls
// and the client's JavaScript, the commit, and the statements that took
// over 1 ms. Chromium's timers here have a 0.1 ms resolution, so the wasm
// share of short calls is approximate. Needs scripts/build-wasm.
//
// Usage: node scripts/inworker-timing/split.mjs [--browsers=3] [--js-flags=...]
import { join } from "node:path";
import { COMPARE_DIR, ROOT, launchBrowser, parseArgs, serve } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["browsers", "js-flags"]);
const browsers = Number(flags.browsers ?? 3);
const jsFlags = flags["js-flags"] === undefined ? null : String(flags["js-flags"]);

const server = await serve({
  "/pkg/": join(ROOT, "client-ts"),
  "/h/": join(ROOT, "scripts/inworker-timing"),
  "/c/": join(COMPARE_DIR, "web"),
});
try {
  for (let b = 0; b < browsers; b++) {
    const browser = await launchBrowser("split", jsFlags);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${server.origin}/h/page.html`);
      const lines = await page.evaluate(
        (sizes) =>
          new Promise((resolve, reject) => {
            const w = new Worker("/h/split-worker.js", { type: "module" });
            w.onmessage = (e) => resolve(e.data);
            w.onerror = (e) => reject(new Error(e.message));
            w.postMessage({ sizes });
          }),
        [25, 100, 250, 1000],
      );
      console.log(`browser ${b + 1}:`);
      for (const l of lines) console.log(`  ${l}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
