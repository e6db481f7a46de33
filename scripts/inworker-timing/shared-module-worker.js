// The Worker side of shared-module.mjs: instantiates the package's wasm from
// the WebAssembly.Module it is sent (or, sent none, from its URL, as the
// package does), opens a database on OPFS with tinyjoin/worker, and either
// warms the code up (mixed transactions and a query, many times) or times
// the open and the first mixed transactions of 25, 100 and 250 operations.
import init from "/pkg/dist/wasm/tinyjoin_worker.js";
import { openInWorker } from "/pkg/dist/worker.js";
import { mixedOps, payload64 } from "/c/common.js";
import { mixedSql } from "/c/workloads.js";

/** One mixed transaction of `n` operations on a fresh table of `n` rows; its ms. */
async function mixed(db, table, n) {
  const q = mixedSql(table);
  await db.exec(q.create);
  const ins = await db.prepare(q.insert);
  await db.transaction(async (tx) => {
    for (let i = 1; i <= n; i++) await tx.runPrepared(ins, [i, `t${i}`, payload64(i)]);
  });
  const stmt = { insert: ins, update: await db.prepare(q.update), delete: await db.prepare(q.delete) };
  const t0 = performance.now();
  await db.transaction(async (tx) => {
    for (const op of mixedOps(n, n)) await tx.runPrepared(stmt[op.kind], op.params);
  });
  return performance.now() - t0;
}

onmessage = async (ev) => {
  const { module, warm } = ev.data;
  // The package calls init() with no argument; a module given here first is
  // the one it then finds instantiated.
  if (module) await init({ module_or_path: module });
  const t0 = performance.now();
  const db = await openInWorker(`shared-${warm ? "warm" : "timed"}-${Date.now()}-${Math.random()}`);
  const openMs = performance.now() - t0;
  if (warm) {
    for (let r = 0; r < 20; r++) await mixed(db, `w${r}`, 100);
    for (let r = 0; r < 20; r++) await db.query("SELECT count(*), sum(length(payload)) FROM w0 WHERE id > 5");
    await db.close();
    postMessage({});
    return;
  }
  const ms = [];
  for (const n of [25, 100, 250]) ms.push(await mixed(db, `m${n}`, n));
  await db.close();
  postMessage({ openMs, ms });
};
