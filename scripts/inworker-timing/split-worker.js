// The timed side of split.mjs: the comparison's mixed transactions in this
// Worker (tinyjoin/worker, OPFS), with the time spent inside the owner's
// wasm calls counted apart from the client's JavaScript.
import { openInWorker } from "/pkg/dist/worker.js";
import { Owner } from "/pkg/dist/wasm/tinyjoin_worker.js";
import { mixedOps, payload64 } from "/c/common.js";
import { mixedSql } from "/c/workloads.js";

let inWasm = 0;
const directIn = Owner.prototype.directIn;
Owner.prototype.directIn = function (...args) {
  const t = performance.now();
  try {
    return directIn.apply(this, args);
  } finally {
    inWasm += performance.now() - t;
  }
};

onmessage = async (ev) => {
  const lines = [];
  const t00 = performance.now();
  const db = await openInWorker(`split-${Date.now()}`);
  lines.push(`open ${(performance.now() - t00).toFixed(1)} ms`);
  for (const n of ev.data.sizes) {
    const q = mixedSql(`m${n}`);
    await db.exec(q.create);
    const ins = await db.prepare(q.insert);
    await db.transaction(async (tx) => {
      for (let i = 1; i <= n; i++) await tx.runPrepared(ins, [i, `t${i}`, payload64(i)]);
    });
    const stmt = { insert: ins, update: await db.prepare(q.update), delete: await db.prepare(q.delete) };
    const ops = mixedOps(n, n);
    let slow = 0;
    let slowMs = 0;
    const slowList = [];
    let staged = 0;
    let stagedWasm = 0;
    inWasm = 0;
    const t0 = performance.now();
    await db.transaction(async (tx) => {
      for (const [i, op] of ops.entries()) {
        const at = performance.now();
        const wasmAt = inWasm;
        await tx.runPrepared(stmt[op.kind], op.params);
        const ms = performance.now() - at;
        if (ms > 1) {
          slow++;
          slowMs += ms;
          slowList.push(`#${i} ${op.kind} ${ms.toFixed(1)} (wasm ${(inWasm - wasmAt).toFixed(1)})`);
        }
      }
      staged = performance.now() - t0;
      stagedWasm = inWasm;
    });
    const total = performance.now() - t0;
    lines.push(
      `mixed ${n}: ${total.toFixed(1)} ms; staging ${staged.toFixed(1)} (wasm ${stagedWasm.toFixed(1)}, ` +
        `JavaScript ${(staged - stagedWasm).toFixed(1)}); commit ${(total - staged).toFixed(1)}; ` +
        `statements over 1 ms: ${slow} (${slowMs.toFixed(1)} ms)${slowList.length ? ": " + slowList.join(", ") : ""}`,
    );
  }
  await db.close();
  postMessage(lines);
};
