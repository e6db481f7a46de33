// What each engine asks of OPFS: a diagnostic tool, not a test (the machine
// is shared and noisy). In a fresh headless Chromium, one Worker per engine
// wraps the methods of FileSystemSyncAccessHandle (write, read, flush,
// getSize, truncate) to count their calls, bytes and time, then runs through
// the comparison's engine adapters and workloads (scripts/compare/web): the
// 200 single-row durable transactions after a 2,000-row bulk insert, and
// I8's UPDATE of an indexed column over 10,000 rows of the index suite's
// 200,000-row table (four rounds on fresh id ranges, the first one cold).
// Engines: TinyJoin (default one-flush commits, and commit: "deferred") and
// SQLite WASM with WAL + synchronous=NORMAL, the comparison's fastest mode.
// Needs scripts/build-wasm and the comparison's packages (scripts/setup).
//
// --js-flags passes V8 flags to Chromium: with "--no-liftoff
// --no-wasm-lazy-compilation" every wasm function is optimized before its
// first call, which tells a round's cold code from its own work.
//
// Usage: node scripts/inworker-timing/opfs-calls.mjs [--engines=tinyjoin,tinyjoin-deferred,sqlite-wal-normal] [--skip-i8] [--js-flags=...]
import { parseArgs } from "../compare/lib/harness.mjs";
import { openEnginePage } from "./engine-page.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["engines", "skip-i8", "js-flags"]);
const jsFlags = flags["js-flags"] === undefined ? null : String(flags["js-flags"]);
const SPECS = {
  tinyjoin: { engine: "tinyjoin" },
  "tinyjoin-deferred": { engine: "tinyjoin", commit: "deferred" },
  "sqlite-wal-normal": { engine: "sqlite", journal: "WAL", synchronous: "NORMAL" },
};
const { engines, page, close } = await openEnginePage("opfs-calls", SPECS, flags.engines, jsFlags);
try {
  for (const e of engines) {
    const r = await page.evaluate(
      ([spec, i8]) =>
        new Promise((resolve, reject) => {
          const w = new Worker("/h/opfs-calls-worker.js", { type: "module" });
          w.onmessage = (ev) => (ev.data.error ? reject(new Error(ev.data.error)) : resolve(ev.data));
          w.onerror = (ev) => reject(new Error(ev.message));
          w.postMessage({ spec, i8 });
        }),
      [SPECS[e], flags["skip-i8"] === undefined],
    );
    console.log(`${e}:`);
    for (const { label, ms, calls } of r) {
      const io = Object.entries(calls)
        .map(([m, c]) => `${m} ${c.n} (${(c.us / 1000).toFixed(1)} ms${c.bytes ? `, ${(c.bytes / 1024).toFixed(0)} KiB` : ""})`)
        .join(", ");
      console.log(`  ${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms; ${io || "no OPFS calls"}`);
    }
  }
} finally {
  await close();
}
