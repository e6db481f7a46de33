// The timed side of run.mjs: opens a database with tinyjoin/worker and times
// each kind of call in rounds; posts the median microseconds per call.
import { openInWorker } from "/pkg/dist/worker.js";

const ROUNDS = 7;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(n, f) {
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await f(r);
    samples.push(((performance.now() - t0) * 1000) / n);
  }
  return median(samples);
}

onmessage = async (ev) => {
  const { n } = ev.data;
  try {
    const db = await openInWorker(`timing-${Date.now()}`);
    await db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    await db.transaction(async (tx) => {
      for (let i = 1; i <= 10000; i++) await tx.run("INSERT INTO t(id, v) VALUES (?, ?)", [i, `value ${i}`]);
    });
    const results = {};
    const lookup = await db.prepare("SELECT v FROM t WHERE id = ?");
    results["point lookup, prepared (stmt.run)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await lookup.run([1 + ((i * 7919) % 10000)]);
    });
    results["point lookup, SQL text (db.query)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await db.query("SELECT v FROM t WHERE id = ?", [1 + ((i * 7919) % 10000)]);
    });
    const ins = await db.prepare("INSERT INTO t(v) VALUES (?)");
    results["insert in a transaction, prepared"] = await timed(n, (r) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < n; i++) await tx.runPrepared(ins, [`p${r}-${i}`]);
      }),
    );
    results["insert in a transaction, SQL text (tx.run)"] = await timed(n, (r) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < n; i++) await tx.run("INSERT INTO t(v) VALUES (?)", [`s${r}-${i}`]);
      }),
    );
    const txns = Math.max(1, Math.floor(n / 100));
    results[`transaction of 25 prepared inserts, commit included (${txns} per round, per transaction)`] = await timed(
      txns,
      async (r) => {
        for (let k = 0; k < txns; k++) {
          await db.transaction(async (tx) => {
            for (let i = 0; i < 25; i++) await tx.runPrepared(ins, [`t${r}-${k}-${i}`]);
          });
        }
      },
    );
    const durable = Math.max(1, Math.floor(n / 10));
    results[`durable autocommit insert, prepared (${durable} per round)`] = await timed(durable, async (r) => {
      for (let i = 0; i < durable; i++) await ins.run([`d${r}-${i}`]);
    });
    results["SELECT 1 (db.query)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await db.query("SELECT 1");
    });
    await db.close();
    postMessage({ rounds: ROUNDS, results });
  } catch (e) {
    postMessage({ error: `${e && e.code}: ${e && e.message}` });
  }
};
