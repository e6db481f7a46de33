// One of the comparison's analytic or join queries (A1-A3, J1-J7 of
// scripts/compare/web/workloads.js) run several times in each of a few
// fresh Workers: a diagnostic tool, not a test (the machine is shared and
// noisy). The comparison times a query's first run and one repeat per
// Worker; this prints every run, the open before them, and each run's OPFS
// reads (calls and time, from opfs-calls-counter.js), for TinyJoin and
// SQLite WASM (WAL + synchronous=FULL), alternating. The read dataset is
// built once per engine, in a Worker of its own, at the comparison's full
// scale. Needs scripts/build-wasm and the comparison's packages.
//
// Usage: node scripts/inworker-timing/query-runs.mjs [--query=J2] [--workers=3]
//          [--runs=6] [--engines=tinyjoin,sqlite-wal-full] [--js-flags=...]
import { parseArgs } from "../compare/lib/harness.mjs";
import { openEnginePage } from "./engine-page.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["query", "workers", "runs", "engines", "js-flags"]);
const jsFlags = flags["js-flags"] === undefined ? null : String(flags["js-flags"]);
const query = String(flags.query ?? "J2");
const SPECS = {
  tinyjoin: { engine: "tinyjoin" },
  "sqlite-wal-full": { engine: "sqlite", journal: "WAL", synchronous: "FULL" },
};
const { engines, page, close } = await openEnginePage("query-runs", SPECS, flags.engines, jsFlags);
try {
  const inWorker = (msg) =>
    page.evaluate(
      (m) =>
        new Promise((resolve, reject) => {
          const w = new Worker("/h/query-runs-worker.js", { type: "module" });
          w.onmessage = (ev) => {
            w.terminate();
            if (ev.data.error) reject(new Error(ev.data.error));
            else resolve(ev.data);
          };
          w.onerror = (ev) => reject(new Error(ev.message));
          w.postMessage(m);
        }),
      msg,
    );
  for (const e of engines) await inWorker({ spec: SPECS[e], name: `query-runs-${e}`, build: true });
  console.log(`${query}, ms per run in a fresh Worker (first, then repeats), after its open; OPFS reads per run (calls/ms):`);
  for (let w = 0; w < Number(flags.workers ?? 3); w++) {
    for (const e of engines) {
      const { openMs, runs } = await inWorker({ spec: SPECS[e], name: `query-runs-${e}`, build: false, query, runs: Number(flags.runs ?? 6) });
      const times = runs.map((r) => r.ms.toFixed(1).padStart(5)).join(" ");
      const reads = runs.map((r) => `${r.calls.read?.n ?? 0}/${((r.calls.read?.us ?? 0) / 1000).toFixed(1)}`).join(" ");
      console.log(`  ${e.padEnd(16)} open ${openMs.toFixed(1).padStart(6)}  runs ${times}   reads ${reads}`);
    }
  }
} finally {
  await close();
}
