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
    const results = {};
    const mixedMs = [];
    const stagingMs = [];
    // First, while this Worker's wasm code is cold (as the comparison's first workload is).
    // The comparison's mixed transaction: a fresh 25-row table with a UNIQUE
    // title, statements prepared, then 25 insert/update/delete operations.
    results["mixed transaction of 25 ops on a fresh table, commit included (per transaction)"] = await timed(1, async (r) => {
      const t = `mixed${r}`;
      await db.exec(`CREATE TABLE ${t}(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)`);
      await db.transaction(async (tx) => {
        for (let i = 1; i <= 25; i++) await tx.run(`INSERT INTO ${t} VALUES (?, ?, ?)`, [i, `t${i}`, "p".repeat(64)]);
      });
      const ins = await db.prepare(`INSERT INTO ${t}(id, title, payload) VALUES (?, ?, ?)`);
      const upd = await db.prepare(`UPDATE ${t} SET title = ? WHERE id = ?`);
      const del = await db.prepare(`DELETE FROM ${t} WHERE id = ?`);
      const t0 = performance.now();
      await db.transaction(async (tx) => {
        for (let i = 0; i < 25; i++) {
          if (i % 3 === 0) await tx.runPrepared(ins, [100 + i, `n${i}`, "q".repeat(64)]);
          else if (i % 3 === 1) await tx.runPrepared(upd, [`u${i}`, 1 + i]);
          else await tx.runPrepared(del, [1 + i]);
        }
        stagingMs.push(performance.now() - t0);
      });
      mixedMs.push(performance.now() - t0);
    });
    results["  of which the transaction alone (µs, median)"] = median(mixedMs) * 1000;
    results["  of which the transaction alone, first round in this Worker (µs)"] = mixedMs[0] * 1000;
    results["  of which staging the 25 operations (µs, median)"] = median(stagingMs) * 1000;
    results["  of which staging, first round in this Worker (µs)"] = stagingMs[0] * 1000;
    await db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    await db.transaction(async (tx) => {
      for (let i = 1; i <= 10000; i++) await tx.run("INSERT INTO t(id, v) VALUES (?, ?)", [i, `value ${i}`]);
    });
    const lookup = await db.prepare("SELECT v FROM t WHERE id = ?");
    results["point lookup, prepared (stmt.run)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await lookup.run([1 + ((i * 7919) % 10000)]);
    });
    // What every prepared run pays whatever its statement: one parameter
    // in, one short row out, no table.
    const trivial = await db.prepare("SELECT ?, 'value 1234'");
    results["SELECT ?, text (prepared, stmt.run)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await trivial.run([i]);
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
    // The mixed transaction's three kinds alone, warm, on a table with a UNIQUE title.
    await db.exec("CREATE TABLE u(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)");
    await db.transaction(async (tx) => {
      for (let i = 1; i <= 10000; i++) await tx.run("INSERT INTO u VALUES (?, ?, ?)", [i, `t${i}`, "p".repeat(64)]);
    });
    const uIns = await db.prepare("INSERT INTO u(id, title, payload) VALUES (?, ?, ?)");
    const uUpd = await db.prepare("UPDATE u SET title = ? WHERE id = ?");
    const uDel = await db.prepare("DELETE FROM u WHERE id = ?");
    const m = Math.min(n, 1000);
    results["insert with a UNIQUE title, prepared, in a transaction"] = await timed(m, (r) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < m; i++) await tx.runPrepared(uIns, [20000 + r * m + i, `n${r}-${i}`, "q".repeat(64)]);
      }),
    );
    results["update of a UNIQUE title by id, prepared, in a transaction"] = await timed(m, (r) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < m; i++) await tx.runPrepared(uUpd, [`u${r}-${i}`, 1 + ((i * 7) % 10000)]);
      }),
    );
    results["delete by id, prepared, in a transaction"] = await timed(m, (r) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < m; i++) await tx.runPrepared(uDel, [1 + r * m + i]);
      }),
    );
    const durable = Math.max(1, Math.floor(n / 10));
    results[`durable autocommit insert, prepared (${durable} per round)`] = await timed(durable, async (r) => {
      for (let i = 0; i < durable; i++) await ins.run([`d${r}-${i}`]);
    });
    results["SELECT 1 (db.query)"] = await timed(n, async () => {
      for (let i = 0; i < n; i++) await db.query("SELECT 1");
    });
    await db.close();
    // The same inserts on databases opened with commit: "two-flush" and
    // with commit: "deferred" (no flush at commit; one within 100 ms).
    for (const [commit, label] of [["two-flush", "durable autocommit insert"], ["deferred", "autocommit insert"]]) {
      const other = await openInWorker(`timing-${commit}-${Date.now()}`, { commit });
      await other.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
      const otherIns = await other.prepare("INSERT INTO t(v) VALUES (?)");
      results[`${label}, commit: "${commit}" (${durable} per round)`] = await timed(durable, async (r) => {
        for (let i = 0; i < durable; i++) await otherIns.run([`d${r}-${i}`]);
      });
      await other.close();
    }
    postMessage({ rounds: ROUNDS, results });
  } catch (e) {
    postMessage({ error: `${e && e.code}: ${e && e.message}` });
  }
};
