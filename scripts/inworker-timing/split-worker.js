// The timed side of split.mjs: the comparison's mixed transactions in this
// Worker (tinyjoin/worker, OPFS), with the time spent inside the owner's
// wasm calls counted apart from the client's JavaScript.
import { openInWorker } from "/pkg/dist/worker.js";
import { Owner } from "/pkg/dist/wasm/tinyjoin_worker.js";

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

const payload = (i) => `p${i}:`.padEnd(64, String.fromCharCode(97 + (i % 26)));

onmessage = async (ev) => {
  const lines = [];
  const t00 = performance.now();
  const db = await openInWorker(`split-${Date.now()}`);
  lines.push(`open ${(performance.now() - t00).toFixed(1)} ms`);
  for (const n of ev.data.sizes) {
    const t = `m${n}`;
    await db.exec(`CREATE TABLE ${t}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)`);
    const ins = await db.prepare(`INSERT INTO ${t}(id, title, payload) VALUES (?, ?, ?)`);
    await db.transaction(async (tx) => {
      for (let i = 1; i <= n; i++) await tx.runPrepared(ins, [i, `t${i}`, payload(i)]);
    });
    const upd = await db.prepare(`UPDATE ${t} SET title = ? WHERE id = ?`);
    const del = await db.prepare(`DELETE FROM ${t} WHERE id = ?`);
    let u = 0;
    let d = 0;
    let slow = 0;
    let slowMs = 0;
    let staged = 0;
    let stagedWasm = 0;
    inWasm = 0;
    const t0 = performance.now();
    await db.transaction(async (tx) => {
      for (let k = 0; k < n; k++) {
        const q = performance.now();
        if (k % 3 === 0) await tx.runPrepared(ins, [n + 1 + k, `n${n + 1 + k}`, payload(n + 1 + k)]);
        else if (k % 3 === 1) await tx.runPrepared(upd, [`u${2 * u + 1}-${k}`, 2 * u++ + 1]);
        else await tx.runPrepared(del, [2 * ++d]);
        const ms = performance.now() - q;
        if (ms > 1) {
          slow++;
          slowMs += ms;
        }
      }
      staged = performance.now() - t0;
      stagedWasm = inWasm;
    });
    const total = performance.now() - t0;
    lines.push(
      `mixed ${n}: ${total.toFixed(1)} ms; staging ${staged.toFixed(1)} (wasm ${stagedWasm.toFixed(1)}, ` +
        `JavaScript ${(staged - stagedWasm).toFixed(1)}); commit ${(total - staged).toFixed(1)}; ` +
        `statements over 1 ms: ${slow} (${slowMs.toFixed(1)} ms)`,
    );
  }
  await db.close();
  postMessage(lines);
};
