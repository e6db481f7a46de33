// Where a fresh process's mixed transactions lose their time: each operation
// of the comparison's mixed transactions (25 / 100 / 250 / 1,000 operations,
// scripts/compare/web, as its Worker rows run them on one owner) timed on
// its own, through the in-worker API in Node 20 with the memory device. A
// diagnostic tool, not a test (the machine is shared and noisy).
//
// Prints, per transaction, its time, and the operations that took longer
// than --over milliseconds: how many, their sum and the first positions.
// On this 2-core machine a few operations per transaction stall for 4 or 8
// ms (whole scheduler ticks) while V8 compiles hot wasm functions with its
// optimizing tier on background threads: compare a run with
// `node --wasm-num-compilation-tasks=1 scripts/inworker-timing/stalls.mjs`,
// and `node --trace-wasm-compilation-times ...` shows the compiles. A busy
// JavaScript loop alone shows no such stalls here.
//
// Usage: node [v8 flags] scripts/inworker-timing/stalls.mjs [--over=0.15]
//          [--dist=client-ts/dist]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { COMPARE_DIR, ROOT, parseArgs } from "../compare/lib/harness.mjs";
import { openPackageInNode } from "./node-tools.mjs";

const { flags } = parseArgs(process.argv.slice(2), ["over", "dist"]);
const over = Number(flags.over ?? 0.15);
const dist = resolve(ROOT, String(flags.dist ?? "client-ts/dist"));
const openInWorker = await openPackageInNode(dist);
const { mixedOps, payload64 } = await import(pathToFileURL(resolve(COMPARE_DIR, "web/common.js")).href);
const { mixedSql } = await import(pathToFileURL(resolve(COMPARE_DIR, "web/workloads.js")).href);

const db = await openInWorker("stalls", { storage: "memory" });
for (const n of [25, 100, 250, 1000]) {
  const q = mixedSql(`pm${n}`);
  await db.exec(q.create);
  const stmt = { insert: await db.prepare(q.insert), update: await db.prepare(q.update), delete: await db.prepare(q.delete) };
  await db.transaction(async (tx) => {
    for (let i = 1; i <= n; i++) await tx.runPrepared(stmt.insert, [i, `t${i}`, payload64(i)]);
  });
  const times = [];
  const t0 = performance.now();
  await db.transaction(async (tx) => {
    for (const op of mixedOps(n, n)) {
      const a = performance.now();
      await tx.runPrepared(stmt[op.kind], op.params);
      times.push(performance.now() - a);
    }
  });
  const ms = performance.now() - t0;
  const slow = times.map((t, i) => [i, t]).filter(([, t]) => t > over);
  const sum = slow.reduce((a, [, t]) => a + t, 0);
  const at = slow.slice(0, 10).map(([i, t]) => `${i}:${t.toFixed(2)}`).join(" ");
  console.log(`${String(n).padStart(5)} operations: ${ms.toFixed(2)} ms; ${slow.length} over ${over} ms, ${sum.toFixed(2)} ms in all${at ? ` (${at})` : ""}`);
}
await db.close();
