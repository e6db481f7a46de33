// Whether a fresh Worker finds the package's wasm already compiled when
// another Worker of the same page ran it first: a diagnostic tool, not a
// test (the machine is shared and noisy). V8 compiles a wasm function on its
// first call and optimizes it once hot; Workers that compile the same bytes
// share that code while the compiled module is alive (here the page holds
// it). Scenarios, each in a new page of one headless Chromium, repeated:
//   fresh             a Worker loads the wasm from its URL, as the package
//                     does, with nothing compiled before (the comparison's
//                     "fresh Worker")
//   page-module       the page compiles the module and hands it over; still
//                     nothing run
//   after-warm        the page compiles the module, a first Worker runs
//                     mixed transactions with it and ends, then a fresh
//                     Worker loads the wasm from its URL
//   warm-concurrent   the warming Worker runs while the timed one opens
// Printed: the open and the first mixed transactions of 25 / 100 / 250
// operations (the comparison's mixedInWorker, scripts/compare/web). Needs
// scripts/build-wasm.
//
// Usage: node scripts/inworker-timing/shared-module.mjs [--reps=3] [--js-flags=...]
import { join } from "node:path";
import { COMPARE_DIR, ROOT, launchBrowser, parseArgs, serve } from "../compare/lib/harness.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["reps", "js-flags"]);
const reps = Number(flags.reps ?? 3);
const jsFlags = flags["js-flags"] === undefined ? null : String(flags["js-flags"]);
const SCENARIOS = ["fresh", "page-module", "after-warm", "warm-concurrent"];

const server = await serve({
  "/pkg/": join(ROOT, "client-ts"),
  "/h/": join(ROOT, "scripts/inworker-timing"),
  "/c/": join(COMPARE_DIR, "web"),
});
const browser = await launchBrowser("shared-module", jsFlags);
try {
  for (let r = 0; r < reps; r++) {
    for (const scenario of SCENARIOS) {
      const page = await browser.context.newPage();
      try {
        await page.goto(`${server.origin}/h/page.html`);
        const out = await page.evaluate(async (scenario) => {
          const run = (module, warm) =>
            new Promise((resolve, reject) => {
              const w = new Worker("/h/shared-module-worker.js", { type: "module" });
              w.onmessage = (e) => {
                w.terminate();
                resolve(e.data);
              };
              w.onerror = (e) => reject(new Error(e.message));
              w.postMessage({ module, warm });
            });
          if (scenario === "fresh") return run(null, false);
          const module = await WebAssembly.compileStreaming(fetch("/pkg/dist/wasm/tinyjoin_worker_bg.wasm"));
          if (scenario === "page-module") return run(module, false);
          if (scenario === "after-warm") {
            await run(module, true);
            return run(null, false);
          }
          const warming = run(module, true);
          const timed = await run(null, false);
          await warming;
          return timed;
        }, scenario);
        console.log(`${scenario.padEnd(16)} open ${out.openMs.toFixed(1)} ms; mixed 25 / 100 / 250: ${out.ms.map((m) => m.toFixed(1)).join(" / ")} ms`);
      } finally {
        await page.close();
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
