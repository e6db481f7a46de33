// The Worker side of shared-module.mjs: instantiates the package's wasm from
// the WebAssembly.Module it is sent (or, sent none, from its URL, as the
// package does), opens a database on OPFS through the comparison's TinyJoin
// adapter, and either warms the code up (the comparison's mixed transactions
// and a query, many times) or times the open and the first mixed
// transactions of 25, 100 and 250 operations (the comparison's workload).
import init from "/pkg/dist/wasm/tinyjoin_worker.js";
import { openEngine } from "/c/engines.js";
import { WORKLOADS } from "/c/workloads.js";

onmessage = async (ev) => {
  const { module, warm } = ev.data;
  // The package calls init() with no argument; a module given here first is
  // the one it then finds instantiated.
  if (module) await init({ module_or_path: module });
  const t0 = performance.now();
  const db = await openEngine({ engine: "tinyjoin" }, `shared-${warm ? "warm" : "timed"}-${Date.now()}-${Math.random()}`);
  const openMs = performance.now() - t0;
  const ms = [];
  // Warming runs 20 transactions of 100-119 operations (a table each).
  for (const n of warm ? Array.from({ length: 20 }, (_, r) => 100 + r) : [25, 100, 250]) {
    ms.push((await WORKLOADS.mixedInWorker(db, null, { n })).ms);
  }
  if (warm) for (let r = 0; r < 20; r++) await db.query("SELECT count(*), sum(length(payload)) FROM m100 WHERE id > 5");
  await db.close();
  postMessage({ openMs, ms });
};
